// A lean request lifecycle for the A/B run (not Convene's code): the same request id, header,
// RequestMeta and JSON line, in one synchronous step before and one after the app, written
// straight to a buffered stdout writer instead of through Effect's logger and annotateLogs.
import * as HttpApp from "@effect/platform/HttpApp";
import * as HttpServerRequest from "@effect/platform/HttpServerRequest";
import * as HttpServerResponse from "@effect/platform/HttpServerResponse";
import * as Cause from "effect/Cause";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import { randomUUID } from "node:crypto";
import { AppConfig } from "../Config/AppConfig.js";
import { PublicOrigin } from "../PublicOrigin.js";
import { clientOf } from "./ClientAddress.js";
import { RequestMeta } from "./RequestMeta.js";
const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;
const pathOf = (url) => { const q = url.indexOf("?"); return q === -1 ? url : url.slice(0, q); };
const TOKEN_PREFIX = /^cv[nsi]_/i;
const TOKEN_LIKE = /^[A-Za-z0-9_-]{32,}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const decoded = (s) => { try { return decodeURIComponent(s); } catch { return s; } };
export const loggedPath = (path) => path.split("/").map((segment, i, segments) => {
    const text = decoded(segment);
    const afterInvitations = i > 0 && decoded(segments[i - 1]).toLowerCase() === "invitations";
    return TOKEN_PREFIX.test(text) || (afterInvitations && TOKEN_LIKE.test(text) && !UUID.test(text)) ? "[redacted]" : segment;
}).join("/");
const statusOf = (exit) => {
    if (Exit.isSuccess(exit)) return exit.value.status;
    if (Cause.isInterruptedOnly(exit.cause)) return 499;
    const squashed = Cause.squash(exit.cause);
    return HttpServerResponse.isServerResponse(squashed) ? squashed.status : 500;
};
let pending = [];
const flush = () => { if (pending.length === 0) return; const t = pending.join(""); pending = []; process.stdout.write(t); };
process.once("exit", flush);
const infoEnabled = () => { const l = (process.env.LOG_LEVEL ?? "Info").toLowerCase(); return l === "info" || l === "debug" || l === "trace" || l === "all"; };
const INFO = infoEnabled();
export const requestLifecycle = (app) => Effect.withFiberRuntime((fiber) => {
    const context = fiber.currentContext;
    const request = Context.unsafeGet(context, HttpServerRequest.HttpServerRequest);
    const incoming = request.headers["x-request-id"];
    const requestId = incoming !== undefined && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    const config = Context.unsafeGet(context, AppConfig);
    const client = clientOf(config.trustedProxies, request.remoteAddress, request.headers, false);
    const meta = { requestId, client, callerId: undefined, route: undefined };
    const started = process.hrtime.bigint();
    const path = pathOf(request.url);
    const routed = Context.unsafeGet(context, PublicOrigin).routePath(path);
    let effect = Effect.provideService(app, RequestMeta, meta);
    if (routed !== path) effect = Effect.provideService(effect, HttpServerRequest.HttpServerRequest, request.modify({ url: routed + request.url.slice(path.length) }));
    return Effect.zipRight(
        HttpApp.appendPreResponseHandler((_, response) => Effect.succeed(HttpServerResponse.setHeader(response, "x-request-id", requestId))),
        Effect.onExit(effect, (exit) => Effect.sync(() => {
            if (!INFO) return;
            const logged = loggedPath(path);
            pending.push(JSON.stringify({ timestamp: new Date().toISOString(), logLevel: "INFO", message: "request", annotations: {
                requestId, callerId: meta.callerId ?? null, clientIp: client.ip, method: request.method, route: meta.route ?? logged, path: logged,
                status: statusOf(exit), durationMs: Number(process.hrtime.bigint() - started) / 1e6 } }) + "\n");
            if (pending.length === 1) setImmediate(flush);
        })));
});
