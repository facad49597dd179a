/**
 * Stub layers for the unit tier (test/unit/), after the Effect examples' `makeTestLayer`
 * (Effect-TS/examples, examples/http-server/src/lib/Layer.ts): a service made of the members a
 * test gives; any other member, when used, dies with a message naming the service and the member,
 * so a test states exactly what the unit under test may touch.
 */
import { Context, Effect, Layer } from "effect"

const unimplemented = (service: string, member: PropertyKey) => {
  const dead = Effect.dieMessage(`${service}: the test stubs no "${String(member)}"`)
  // usable as an effect (a member that is one) or as a function returning it (a method)
  const stub = () => dead
  Object.setPrototypeOf(stub, Object.getPrototypeOf(dead))
  return Object.assign(stub, dead)
}

/** The service `tag` made of `members`; any other member dies when used. */
export const stub = <I, S extends object>(tag: Context.Tag<I, S>, members: Partial<S>): S =>
  new Proxy({ ...members } as S, {
    get: (target, member) =>
      member in target ? target[member as keyof S] : ((target as Record<PropertyKey, unknown>)[member] = unimplemented(tag.key, member)),
    has: () => true
  })

/** A layer of `stub(tag, members)`. */
export const makeTestLayer = <I, S extends object>(tag: Context.Tag<I, S>) => (members: Partial<S>): Layer.Layer<I> =>
  Layer.succeed(tag, stub(tag, members))
