import type { FastifyInstance } from "fastify";
import { Type, type Static } from "@sinclair/typebox";
import type { Context } from "../../domain/context.js";
import { AccessDeniedError } from "../../domain/errors.js";
import { MAX_EMAIL_LENGTH, changeOwnPassword, setPassword, updateUser } from "../../domain/accounts.js";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "../../domain/passwords.js";
import { signIn } from "../../domain/sign-in.js";
import { currentPrincipal } from "../auth.js";
import { tags, UserParams } from "./admin-schemas.js";
import { answers, NoContent, User } from "./admin-responses.js";

/*
 * Password sign-in and account changes. A password is never quoted back: the schemas'
 * refusals (Fastify's own texts) and the domain's name the parameter, never its value,
 * and the request log holds no bodies (logging.ts).
 */

const Password = Type.String({
  minLength: MIN_PASSWORD_LENGTH, maxLength: MAX_PASSWORD_LENGTH,
  description: `at least ${MIN_PASSWORD_LENGTH} characters; never logged or returned`,
});
const Email = Type.String({ maxLength: MAX_EMAIL_LENGTH, description: "case-insensitive; stored trimmed and lower-cased" });

const SignInBody = Type.Object({
  email: Type.String({ maxLength: MAX_EMAIL_LENGTH }),
  // No minimum here: a short password is wrong, and is refused as any wrong one is.
  password: Type.String({ maxLength: MAX_PASSWORD_LENGTH }),
});
const SignedIn = Type.Object({
  token: Type.String({ description: "send it as Authorization: Bearer <token>; listed and revocable like any token" }),
  expiresAt: Type.String({ description: "YYYY-MM-DD HH:MM:SS in BLOC_TIMEZONE: BLOC_SESSION_HOURS from now" }),
  user: Type.Object({ id: Type.String(), name: Type.String(), role: Type.Union([Type.Literal("admin"), Type.Literal("member")]) }),
});
const OwnPasswordBody = Type.Object({
  currentPassword: Type.String({ maxLength: MAX_PASSWORD_LENGTH }),
  newPassword: Password,
}, { additionalProperties: false });
const PasswordBody = Type.Object({ password: Password }, { additionalProperties: false });
const AccountPatch = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  email: Type.Optional(Type.Union([Email, Type.Null()], { description: "null removes it (and with it password sign-in)" })),
  disabled: Type.Optional(Type.Boolean({ description: "true: every token of the user, and their sign-in, is refused at once" })),
}, { additionalProperties: false });

/** POST /api/authenticate: no token needed, so it is registered outside the authenticated scopes. */
export function signInRoute(app: FastifyInstance, ctx: Context, sessionHours: number): void {
  app.post<{ Body: Static<typeof SignInBody> }>("/api/authenticate", {
    schema: {
      summary: "Sign in with email and password: a token of the user, expiring after BLOC_SESSION_HOURS",
      description: "A wrong email, a wrong password and a disabled user get the same 401. After 5 attempts for one email " +
        "within 15 minutes, that email gets 429 with Retry-After until the window passes, even with the right password.",
      tags: ["self"], security: [], body: SignInBody, response: answers(200, SignedIn, "public"),
    },
  }, async (request) => signIn(ctx, request.body.email, request.body.password, sessionHours));
}

/** POST /api/me/password, in the scope of routes that take a token. */
export function ownPasswordRoute(app: FastifyInstance, ctx: Context): void {
  app.post<{ Body: Static<typeof OwnPasswordBody> }>("/api/me/password", {
    schema: {
      summary: "Change your own password (an unscoped token only)", tags: ["self"],
      body: OwnPasswordBody, response: answers(204, NoContent, "public"),
    },
  }, async (request, reply) => {
    const principal = currentPrincipal(request);
    // A token narrowed to some blocs or permissions (a machine's) must not be able to
    // turn itself into the user's full rights by setting a password it then signs in with.
    if (principal.scope.permissions !== null || principal.scope.blocs !== null) throw new AccessDeniedError();
    await changeOwnPassword(ctx, principal.user.id, request.body.currentPassword, request.body.newPassword);
    return reply.status(204).send();
  });
}

/** Admins set passwords, change names and emails, disable and enable users. */
export function adminAccountRoutes(app: FastifyInstance, ctx: Context): void {
  app.put<{ Params: Static<typeof UserParams>; Body: Static<typeof PasswordBody> }>("/api/admin/users/:userId/password", {
    schema: { tags, summary: "Set a user's password", params: UserParams, body: PasswordBody, response: answers(204, NoContent) },
  }, async (request, reply) => {
    await setPassword(ctx, request.params.userId, request.body.password);
    return reply.status(204).send();
  });

  app.patch<{ Params: Static<typeof UserParams>; Body: Static<typeof AccountPatch> }>("/api/admin/users/:userId", {
    schema: {
      tags, summary: "Change a user's name or email, or disable or enable them", params: UserParams, body: AccountPatch,
      response: answers(200, User),
    },
  }, async (request) => updateUser(ctx, currentPrincipal(request).user.id, request.params.userId, request.body));
}
