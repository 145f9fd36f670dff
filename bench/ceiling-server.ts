import Fastify from "fastify";

/** The framework's limit on this machine: a bare route answering a small JSON object, settings as the service's. */
const app = Fastify({ logger: { level: "warn" } });
app.post("/", async () => ({ returnedStationID: 1, autogenerateReplacements: [] }));
const address = await app.listen({ port: 0, host: "127.0.0.1" });
process.stdout.write(`Bloc Data Service listening on ${address}\n`);
