/** The event form's building blocks: its groups of fields and the rows of its repeated groups. */
import type { ComponentChildren } from "preact"
import { BLANK_ROWS } from "./FormValues.js"

/** Filled rows, then blank ones to add more (no scripts needed), up to the API's limit. */
export const withBlanks = <A,>(filled: ReadonlyArray<A>, blank: A, max: number): ReadonlyArray<A> => [
  ...filled,
  ...Array.from({ length: Math.max(0, Math.min(BLANK_ROWS, max - filled.length)) }, () => blank)
]

export const Group = (props: { legend: string; hint?: string; id?: string; children: ComponentChildren }) => (
  <fieldset class="event-fieldset" id={props.id}>
    <legend><h2 class="legend-title">{props.legend}</h2></legend>
    {props.hint ? <p class="hint">{props.hint}</p> : null}
    {props.children}
  </fieldset>
)

/** One row of a repeated group (`virtualLocations.0.url`...), numbered, its fields side by side. */
export const Row = (props: { legend: string; layout: "two" | "three" | "four" | "image"; children: ComponentChildren; id?: string }) => (
  <fieldset class="row-group" id={props.id}>
    <legend>{props.legend}</legend>
    <div class={`row-fields ${props.layout}`}>{props.children}</div>
  </fieldset>
)
