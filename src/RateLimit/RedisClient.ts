/**
 * The Redis client class, in a module of its own so that RedisBuckets.ts can load it (and ioredis
 * with it) only when `REDIS_URL` is set: a dynamic import of this module keeps ioredis out of
 * start-up, in the bundle as when run from source.
 */
export { Redis } from "ioredis"
