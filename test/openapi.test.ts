import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import Fastify from "fastify";
import { validate } from "@readme/openapi-parser";
import type { TSchema } from "@sinclair/typebox";
import { errorResponses } from "../src/http/error-schemas.js";
import { AddDataAnswer, GetDataAnswer, ReportAnswer, UpdateAnswer } from "../src/http/routes/record-schemas.js";
import { Bloc, History, IssuedToken, Me, User } from "../src/http/routes/admin-responses.js";
import { CreatedWebhook, DeliveryList, WebhookList } from "../src/http/routes/admin-webhooks.js";
import { addBloc, addMember, startServer, type TestServer } from "./support/server.js";
import type { JsonBody } from "./support/json.js";

/**
 * The OpenAPI document (GET /api/openapi.json): valid OpenAPI 3.1 for a maintained
 * validator, listing every route the server has with its real success status, and
 * describing real answers truthfully.
 */

let server: TestServer;
let doc: JsonBody;

before(async () => {
  server = await startServer();
  const reply = await server.call("GET", "/api/openapi.json", { token: "" });
  assert.equal(reply.status, 200, reply.text);
  doc = reply.json;
});

after(async () => {
  await server.close();
});

/**
 * Every route as "METHOD /path", read from Fastify's own route tree (printRoutes), whose
 * lines are "<indent>── <segment> (<METHODS>)", each level indented by 4 characters.
 */
function registeredRoutes(tree: string): string[] {
  const routes: string[] = [];
  const stack: string[] = [];
  for (const line of tree.split("\n")) {
    const match = /^([│ ├└─]*?)[├└]── (.*?) \(([^)]*)\)$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    stack.length = depth;
    stack.push(match[2]!);
    if (match[3] === "-") continue;
    for (const method of match[3]!.split(", ")) routes.push(`${method} ${stack.join("")}`);
  }
  return routes;
}

/**
 * Left out of the check, and only these: Fastify's automatic HEAD twins of GET routes
 * (and the two read endpoints' explicit ones), which OpenAPI generators leave out; the
 * assets of the /docs page and of the web console at /console (HTML, scripts, styles);
 * the OpenAPI document itself, at /api/openapi.json and at /docs/json and /docs/yaml for the page.
 */
function documentable(route: string): boolean {
  const [method, path] = route.split(" ") as [string, string];
  // The console's wildcard prints as "/console" then "*": it reads back as "/console*".
  return method !== "HEAD" && path !== "/api/openapi.json" && path !== "/docs" && !path.startsWith("/docs/") &&
    !/^\/console(?:$|\/|\*)/.test(path);
}

/** The success status each route answers with: creations 201, removals 204, the rest 200. */
const SUCCESS: Readonly<Record<string, string>> = {
  "GET /health": "200", "GET /healthz": "200", "GET /readyz": "200", "GET /metrics": "200",
  "POST /api/add-data": "200",
  "GET /api/get-data": "200", "POST /api/get-data": "200",
  "GET /api/get-data-report": "200", "POST /api/get-data-report": "200",
  "POST /api/update-records-by-matching-values": "200",
  "POST /api/delete-records-by-matching-values": "200",
  "POST /api/admin/blocs/:blocId/records/:recordId/restore": "200",
  "GET /api/me": "200",
  "POST /api/authenticate": "200", "POST /api/me/password": "204",
  "PUT /api/admin/users/:userId/password": "204", "PATCH /api/admin/users/:userId": "200",
  "GET /api/files/:ref": "200",
  "POST /api/admin/users": "201",
  "GET /api/admin/users/:userId": "200", "PUT /api/admin/users/:userId": "200",
  "GET /api/admin/users": "200", "GET /api/admin/users/:userId/tokens": "200",
  "POST /api/admin/users/:userId/tokens": "201",
  "DELETE /api/admin/tokens/:tokenId": "204",
  "POST /api/admin/roles": "201", "GET /api/admin/roles": "200",
  "PUT /api/admin/users/:userId/roles/:roleId": "200", "DELETE /api/admin/users/:userId/roles/:roleId": "204",
  "POST /api/admin/modules": "201", "GET /api/admin/modules": "200",
  "POST /api/admin/blocs": "201", "GET /api/admin/blocs": "200",
  "GET /api/admin/blocs/:blocId": "200", "PATCH /api/admin/blocs/:blocId": "200",
  "POST /api/admin/blocs/:blocId/fields": "201", "PATCH /api/admin/blocs/:blocId/fields/:slug": "200",
  "PUT /api/admin/blocs/:blocId/access/:userId": "200", "DELETE /api/admin/blocs/:blocId/access/:userId": "204",
  "PUT /api/admin/blocs/:blocId/access/roles/:roleId": "200", "DELETE /api/admin/blocs/:blocId/access/roles/:roleId": "204",
  "PUT /api/admin/blocs/:blocId/restrictions/:userId": "200", "DELETE /api/admin/blocs/:blocId/restrictions/:userId": "204",
  "GET /api/admin/blocs/:blocId/records/:recordId/history": "200",
  "GET /api/blocs/:blocId/fields": "200", "GET /api/admin/blocs/:blocId/access": "200",
  "DELETE /api/admin/blocs/:blocId": "204", "DELETE /api/admin/blocs/:blocId/fields/:slug": "204",
  "DELETE /api/admin/roles/:roleId": "204", "DELETE /api/admin/modules/:moduleId": "204",
  "GET /api/events": "200",
  "GET /api/blocs/:blocId/user-names": "200",
  "GET /api/blocs/:blocId/records/:recordId": "200",
  "GET /api/blocs/:blocId/timeline": "200",
  "POST /api/admin/webhooks": "201", "GET /api/admin/webhooks": "200", "DELETE /api/admin/webhooks/:webhookId": "204",
  "GET /api/admin/webhooks/:webhookId/deliveries": "200", "POST /api/admin/webhooks/:webhookId/deliveries/:deliveryId/resend": "200",
};

const openapiPath = (path: string): string => path.replace(/:(\w+)/g, "{$1}");

describe("the OpenAPI document", () => {
  test("is valid OpenAPI 3.1 for @readme/openapi-parser", async () => {
    assert.equal(doc.openapi, "3.1.0");
    const result = await validate(structuredClone(doc));
    assert.equal(result.valid, true, JSON.stringify(result, null, 2).slice(0, 3000));
  });

  test("lists every registered route with its real success status, and nothing else", () => {
    const routes = registeredRoutes(server.app.printRoutes({ commonPrefix: false })).filter(documentable);
    assert.ok(routes.length >= 30, `only ${routes.length} routes were read from printRoutes`);
    for (const route of routes) {
      const [method, path] = route.split(" ") as [string, string];
      const operation = doc.paths[openapiPath(path)]?.[method.toLowerCase()];
      assert.ok(operation, `${route} is not in the OpenAPI document`);
      assert.ok(SUCCESS[route], `${route} has no expected success status in this test: add it to SUCCESS`);
      const successes = Object.keys(operation.responses).filter((status) => status.startsWith("2"));
      assert.deepEqual(successes, [SUCCESS[route]], `${route}'s success responses`);
    }
    const documented = Object.entries(doc.paths).flatMap(([path, operations]) =>
      Object.keys(operations as object).map((method) => `${method.toUpperCase()} ${path}`));
    assert.deepEqual(documented.sort(), routes.map((r) => { const [m, p] = r.split(" "); return `${m} ${openapiPath(p!)}`; }).sort());
  });

  test("the four spec endpoints describe their inputs: a JSON body, and the query string for the read endpoints", () => {
    const body = (path: string, method: string) => doc.paths[path][method].requestBody?.content?.["application/json"]?.schema;
    assert.deepEqual(body("/api/add-data", "post").required, ["scanStationID", "dataToAdd"]);
    assert.ok(doc.paths["/api/add-data"].post.requestBody.content["multipart/form-data"], "add-data documents its multipart form");
    for (const method of ["get", "post"]) {
      assert.deepEqual(body("/api/get-data", method).required, ["blocId"]);
      assert.deepEqual(body("/api/get-data-report", method).required, ["stationID", "fieldsToReport"]);
      const query = doc.paths["/api/get-data"][method].parameters.filter((p: JsonBody) => p.in === "query").map((p: JsonBody) => p.name);
      assert.deepEqual(query, ["blocId", "resultLimit", "currentPage", "reverse", "fromDate", "toDate"]);
    }
    assert.deepEqual(body("/api/update-records-by-matching-values", "post").required, ["blocId", "fieldsToUpdate", "searchItems"]);
    assert.deepEqual(body("/api/delete-records-by-matching-values", "post").required, ["blocId", "searchItems"]);
    const report = doc.paths["/api/get-data-report"].get.responses["200"].content;
    assert.ok(report["application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"], "the .xlsx answer is documented");
  });

  test("error bodies carry the spec's key per endpoint", () => {
    const keysOf = (schema: JsonBody): string[] => (schema.anyOf ?? [schema]).map((s: JsonBody) => s.required[0]).sort();
    const errors = (path: string, method: string, status: string) =>
      keysOf(doc.paths[path][method].responses[status].content["application/json"].schema);
    assert.deepEqual(errors("/api/add-data", "post", "403"), ["error"]);
    assert.deepEqual(errors("/api/get-data", "get", "401"), ["error"]);
    assert.deepEqual(errors("/api/get-data", "get", "400"), ["error", "message"]);
    assert.deepEqual(errors("/api/update-records-by-matching-values", "post", "401"), ["message"]);
    assert.deepEqual(errors("/api/update-records-by-matching-values", "post", "400"), ["error", "message"]);
    // delete-records refuses as update-records does.
    assert.deepEqual(errors("/api/delete-records-by-matching-values", "post", "401"), ["message"]);
    assert.deepEqual(errors("/api/delete-records-by-matching-values", "post", "400"), ["error", "message"]);
    assert.deepEqual(errors("/api/admin/blocs", "post", "409"), ["error"]);
    assert.equal(doc.paths["/api/admin/blocs"].post.responses["200"], undefined, "POST /blocs answers 201, not 200");
  });
});

/** Whether `value` conforms to `schema`, checked by Fastify's own validator (the service's Ajv). */
async function conforms(schema: TSchema, value: unknown): Promise<string | null> {
  // As strict as the service: no coercion, nothing removed.
  const checker = Fastify({ ajv: { customOptions: { removeAdditional: false, coerceTypes: false } } });
  checker.post("/", { schema: { body: schema } }, async (_request, reply) => reply.status(204).send());
  try {
    const reply = await checker.inject({ method: "POST", url: "/", payload: JSON.stringify(value), headers: { "content-type": "application/json" } });
    return reply.statusCode === 204 ? null : reply.body;
  } finally {
    await checker.close();
  }
}

describe("the documented response schemas describe real answers", () => {
  test("a whole workflow's answers conform to their schemas (a bad schema fails this)", async () => {
    const blocId = await addBloc(server, "Conforming", ["Part", "Site"]);
    const member = await addMember(server, { blocId, read: true, add: true, update: true });
    const checks: [string, TSchema, number, { status: number; json: unknown }][] = [];
    const check = (name: string, schema: TSchema, status: number, reply: { status: number; json: unknown; text: string }) => {
      assert.equal(reply.status, status, `${name}: ${reply.text}`);
      checks.push([name, schema, status, reply]);
    };
    const added = await server.call("POST", "/api/add-data", { token: member.token, json: { scanStationID: blocId, dataToAdd: JSON.stringify({ field_1: "bolt", field_2: "North" }) } });
    check("add-data", AddDataAnswer, 200, added);
    await server.call("POST", "/api/add-data", { token: member.token, json: { scanStationID: blocId, dataToAdd: { field_1: "nut" } } });
    check("get-data", GetDataAnswer, 200, await server.call("GET", "/api/get-data", { token: member.token, json: { blocId } }));
    check("get-data-report", ReportAnswer, 200, await server.call("GET", "/api/get-data-report", { token: member.token, json: { stationID: blocId, fieldsToReport: "all" } }));
    check("update", UpdateAnswer, 200, await server.call("POST", "/api/update-records-by-matching-values", {
      token: member.token, json: { blocId, fieldsToUpdate: JSON.stringify({ field_2: "South" }), searchItems: JSON.stringify({ field_1: "bolt" }) },
    }));
    check("me", Me, 200, await server.call("GET", "/api/me", { token: member.token }));
    check("bloc", Bloc, 200, await server.call("GET", `/api/admin/blocs/${blocId}`));
    check("user", User, 201, await server.call("POST", "/api/admin/users", { json: { name: "Checked" } }));
    check("token", IssuedToken, 201, await server.call("POST", `/api/admin/users/${member.id}/tokens`, { json: {} }));
    check("history", History, 200, await server.call("GET", `/api/admin/blocs/${blocId}/records/${added.json.returnedStationID}/history`));
    const webhook = await server.call("POST", "/api/admin/webhooks", { json: { url: "http://127.0.0.1:9/", blocs: [blocId] } });
    check("webhook", CreatedWebhook, 201, webhook);
    check("webhooks", WebhookList, 200, await server.call("GET", "/api/admin/webhooks"));
    check("deliveries", DeliveryList, 200, await server.call("GET", `/api/admin/webhooks/${webhook.json.id}/deliveries`));
    check("events refusal", errorResponses("events")[401]!, 401, await server.call("GET", `/api/events?blocId=${blocId}`, { token: (await addMember(server)).token }));
    check("get-data refusal", errorResponses("get-data")[401]!, 401, await server.call("GET", "/api/get-data", { token: (await addMember(server)).token, json: { blocId } }));
    check("update refusal", errorResponses("update-records")[400]!, 400, await server.call("POST", "/api/update-records-by-matching-values", { json: { blocId, fieldsToUpdate: { nope: 1 }, searchItems: { field_1: "x" } } }));
    for (const [name, schema, , reply] of checks) {
      assert.equal(await conforms(schema, reply.json), null, `${name}'s answer does not conform: ${JSON.stringify(reply.json).slice(0, 500)}`);
    }
    // The checker itself can fail: a get-data answer is not an add-data answer.
    assert.notEqual(await conforms(AddDataAnswer, checks[1]![3].json), null);
  });
});
