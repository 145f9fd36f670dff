import type { FastifyReply } from "fastify";

/**
 * What every page this service serves (the console, /docs) is sent with: its content
 * security policy, no type sniffing, no framing by another page (clickjacking), and no
 * address given away as a referrer.
 */
export function setPageHeaders(reply: FastifyReply, csp: string): void {
  void reply.header("content-security-policy", csp)
    .header("x-content-type-options", "nosniff")
    .header("referrer-policy", "no-referrer")
    .header("x-frame-options", "DENY");
}
