/** Form fields: labelled, with their hint and error announced to screen readers, and the summary of a refused form. */
import type { HTMLInputTypeAttribute, InputHTMLAttributes } from "preact"

export interface FieldProps {
  readonly name: string
  readonly label: string
  readonly value?: string | null | undefined
  readonly type?: HTMLInputTypeAttribute
  readonly hint?: string | undefined
  readonly error?: string | undefined
  readonly required?: boolean
  readonly autocomplete?: string
  readonly placeholder?: string
  readonly maxLength?: number
  readonly min?: string | number
  readonly step?: string
  readonly inputMode?: "text" | "email" | "numeric" | "decimal" | "tel" | "url" | "search"
  readonly id?: string
}

const describedBy = (id: string, hint: unknown, error: unknown) =>
  [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter((s) => s !== "").join(" ") || undefined

/** A labelled input with its hint and error, announced to screen readers. */
export const Field = (props: FieldProps) => {
  const id = props.id ?? `f-${props.name}`
  return (
    <div class={`field${props.error ? " has-error" : ""}`}>
      <label for={id}>
        {props.label}
        {props.required ? <span class="req" aria-hidden="true"> *</span> : null}
      </label>
      {props.hint ? <p class="hint" id={`${id}-hint`}>{props.hint}</p> : null}
      <input
        {...({
          id,
          name: props.name,
          type: props.type ?? "text",
          value: props.value ?? "",
          required: props.required,
          autocomplete: props.autocomplete,
          placeholder: props.placeholder,
          maxLength: props.maxLength,
          min: props.min,
          step: props.step,
          inputMode: props.inputMode,
          "aria-invalid": props.error ? "true" : undefined,
          "aria-describedby": describedBy(id, props.hint, props.error)
          // Preact types each input type apart; this one component serves them all
        } as InputHTMLAttributes)}
      />
      {props.error ? <p class="error-text" id={`${id}-error`}>{props.error}</p> : null}
    </div>
  )
}

export const TextArea = (props: Omit<FieldProps, "type"> & { rows?: number }) => {
  const id = props.id ?? `f-${props.name}`
  return (
    <div class={`field${props.error ? " has-error" : ""}`}>
      <label for={id}>{props.label}</label>
      {props.hint ? <p class="hint" id={`${id}-hint`}>{props.hint}</p> : null}
      <textarea
        id={id}
        name={props.name}
        rows={props.rows ?? 4}
        maxLength={props.maxLength}
        aria-invalid={props.error ? "true" : undefined}
        aria-describedby={describedBy(id, props.hint, props.error)}
      >
        {props.value ?? ""}
      </textarea>
      {props.error ? <p class="error-text" id={`${id}-error`}>{props.error}</p> : null}
    </div>
  )
}

export const Select = (props: {
  name: string
  label: string
  options: ReadonlyArray<{ readonly value: string; readonly label: string }>
  value?: string | null | undefined
  hint?: string
  error?: string | undefined
  id?: string
}) => {
  const id = props.id ?? `f-${props.name}`
  return (
    <div class={`field${props.error ? " has-error" : ""}`}>
      <label for={id}>{props.label}</label>
      {props.hint ? <p class="hint" id={`${id}-hint`}>{props.hint}</p> : null}
      <select id={id} name={props.name} aria-describedby={describedBy(id, props.hint, props.error)} aria-invalid={props.error ? "true" : undefined}>
        {props.options.map((o) => <option value={o.value} selected={o.value === props.value}>{o.label}</option>)}
      </select>
      {props.error ? <p class="error-text" id={`${id}-error`}>{props.error}</p> : null}
    </div>
  )
}

export const Checkbox = (props: { name: string; label: string; checked: boolean; hint?: string; value?: string; id?: string }) => {
  const id = props.id ?? `f-${props.name}`
  return (
    <div class="field check">
      <input type="checkbox" id={id} name={props.name} value={props.value ?? "on"} checked={props.checked} aria-describedby={props.hint ? `${id}-hint` : undefined} />
      <label for={id}>{props.label}</label>
      {props.hint ? <p class="hint" id={`${id}-hint`}>{props.hint}</p> : null}
    </div>
  )
}

/** A summary of what was wrong with a submitted form, linking to each field. */
export const ErrorSummary = ({ errors }: { errors: ReadonlyArray<{ readonly field: string; readonly message: string }> }) =>
  errors.length === 0 ? null : (
    <div class="flash error" role="alert">
      <p><strong>Please correct {errors.length === 1 ? "this" : `these ${errors.length}`}:</strong></p>
      <ul>
        {errors.map((e) => <li><a href={`#f-${e.field}`}>{e.message}</a></li>)}
      </ul>
    </div>
  )
