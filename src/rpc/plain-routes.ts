/**
 * Plain GET routes beside the JSON-RPC API: the node's `/health/livez`, `/health/readyz` and
 * `/debug/metrics`. Lotus mounts these outside the API's token check (filecoin-project/lotus
 * `node/rpc.go`), so a monitor needs no token, and one that sends a stale token is not refused.
 * The server only serves what the route answers; what the answer means is the node's business.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';

export interface PlainAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

export interface PlainRoute {
  /** The path, e.g. `/health/livez`. */
  readonly path: string;
  answer(): PlainAnswer | Promise<PlainAnswer>;
}

/** The route config that marks a plain route, read by the server's token check. */
const PLAIN = { plainRoute: true } as const;

/** Whether the request is for a plain route: those skip the token check. */
export function isPlainRoute(request: FastifyRequest): boolean {
  return (request.routeOptions.config as { plainRoute?: boolean }).plainRoute === true;
}

/** Registers each route for GET (and HEAD, which fastify derives). */
export function registerPlainRoutes(app: FastifyInstance, routes: readonly PlainRoute[]): void {
  for (const route of routes) {
    app.get(route.path, { config: PLAIN }, async (_request, reply) => {
      const { status, contentType, body } = await route.answer();
      return reply.code(status).header('cache-control', 'no-store').type(contentType).send(body);
    });
  }
}
