/**
 * The CSV machinery of `src/Csv/` on its own: header matching, formula neutralization, quoting,
 * separator detection, the reader's edge cases, UTF-8 checks and the routes that take CSV bodies.
 */
import { describe, expect, it } from "@effect/vitest"
import { parse } from "csv-parse/sync"
import { Effect, Either, FastCheck as fc, Stream } from "effect"
import { Api } from "../../src/Api.js"
import { csvBodyRoutes, decodeCsvBytes, firstInvalidUtf8, refusedContentType } from "../../src/Csv/CsvBody.js"
import { attachmentName, csvDocument, renderRecords } from "../../src/Csv/CsvExport.js"
import { type CsvRow, detectDelimiter, type HeaderSpec, matchHeader, normalizeHeader, readCsv } from "../../src/Csv/CsvImport.js"
import { neutralize, restore } from "../../src/Csv/Formula.js"
import { importAnswer, MAX_LISTED_ERRORS, RowErrors } from "../../src/Csv/ImportReport.js"
import { InvalidRequest } from "../../src/Domain/Errors.js"
import type { FieldDef } from "../../src/Persons/CustomFields.js"
import { FieldOption } from "../../src/Persons/Domain.js"
import { MULTISELECT_SEPARATOR } from "../../src/Persons/PersonsCsv.js"
import { displayValue } from "../../src/Persons/PersonsCsvExport.js"
import { splitOptions } from "../../src/Persons/PersonsCsvRows.js"

type Key = "firstName" | "lastName" | "email" | "postalCode" | "personId"

const spec: HeaderSpec<Key, string> = {
  columns: [
    { key: "personId", header: "personId", readOnly: true },
    { key: "firstName", header: "firstName" },
    { key: "lastName", header: "lastName", aliases: ["surname"] },
    { key: "email", header: "email", aliases: ["email address"] },
    { key: "postalCode", header: "postalCode", aliases: ["zip"] }
  ],
  required: ["email"],
  extra: (header) => (/^custom:/i.test(header) ? { key: header.slice(7).trim().toLowerCase(), value: header.slice(7).trim() } : undefined)
}

/** Reads `text` with a sink that keeps every row. */
const read = (text: string, maxRows?: number) => {
  const rows: Array<CsvRow> = []
  return Effect.either(Effect.map(
    readCsv(text, spec, (row) => rows.push(row), maxRows === undefined ? {} : { maxRows }),
    (summary) => ({ ...summary, count: summary.rows, rows })
  ))
}

const refusal = (result: Either.Either<unknown, InvalidRequest>) => {
  expect(Either.isLeft(result)).toBe(true)
  return (result as Either.Left<InvalidRequest, unknown>).left.message
}

describe("header matching", () => {
  it("ignores case, spaces and punctuation", () => {
    for (const header of ["First name", "first_name", "firstName", "FIRST-NAME", " first.name ", "Firstname", "ＦｉｒｓｔＮａｍｅ"]) {
      expect(normalizeHeader(header), header).toBe("firstname")
    }
    for (const header of ["E-mail", "email", "EMAIL", "e_mail", "E-Mail Address"]) {
      const matched = matchHeader([header], spec)
      expect(matched, header).not.toBeInstanceOf(InvalidRequest)
      expect((matched as Exclude<typeof matched, InvalidRequest>).slots, header).toEqual([{ _tag: "Column", index: 0, header, key: "email" }])
    }
    expect(normalizeHeader("Prénom")).toBe("prénom")
  })

  it("maps aliases, skips read-only columns, reports unknown and blank ones, takes extra columns", () => {
    const matched = matchHeader(["ZIP", "Surname", "personId", "Shoe size", "", "custom: Diet", "email"], spec)
    expect(matched).toEqual({
      slots: [
        { _tag: "Column", index: 0, header: "ZIP", key: "postalCode" },
        { _tag: "Column", index: 1, header: "Surname", key: "lastName" },
        { _tag: "Extra", index: 5, header: "custom: Diet", key: "diet", value: "Diet" },
        { _tag: "Column", index: 6, header: "email", key: "email" }
      ],
      unknown: [3],
      blank: [4]
    })
  })

  it("refuses two columns for one field, a missing required column, and NUL in a header", () => {
    const twice = matchHeader(["email", "First name", "first_name"], spec)
    expect(twice).toBeInstanceOf(InvalidRequest)
    expect((twice as InvalidRequest).message).toBe("column 2 (\"First name\") and column 3 (\"first_name\") are both firstName: keep one of them")
    const extraTwice = matchHeader(["email", "custom:Diet", "CUSTOM: diet"], spec)
    expect((extraTwice as InvalidRequest).message).toMatch(/are both "diet"/)
    expect((matchHeader(["firstName"], spec) as InvalidRequest).message).toBe("The CSV has no email column (its headers: \"firstName\")")
    expect((matchHeader(["email", "a\u0000b"], spec) as InvalidRequest).message).toMatch(/NUL character \(U\+0000\) in column 2/)
  })
})

describe("formula neutralization", () => {
  it("prefixes cells that start with =, +, -, @, tab or carriage return (and full-width signs)", () => {
    for (const cell of ["=1+2", "+1 555", "-5", "@SUM(A1)", "\tx", "\rx", "＝1", "＋1", "－1", "＠x", "=HYPERLINK(\"http://evil\",\"x\")"]) {
      expect(neutralize(cell), JSON.stringify(cell)).toBe(`'${cell}`)
    }
    for (const cell of ["", "a=1", "1-2", " =x", "'quoted", "Ada", "é"]) expect(neutralize(cell), cell).toBe(cell)
    expect(neutralize("'=x")).toBe("''=x")
  })

  it("is undone by restore, for every string", () => {
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom("'", "=", "+", "-", "@", "\t", "\r", "a", " ", "＝") }), (s) => {
      expect(restore(neutralize(s))).toBe(s)
    }))
    fc.assert(fc.property(fc.fullUnicodeString(), (s) => {
      expect(restore(neutralize(s))).toBe(s)
    }))
    // a hand-typed formula is imported as the text it is
    expect(restore("=1+2")).toBe("=1+2")
    expect(restore("'hello")).toBe("'hello")
  })
})

describe("export rendering", () => {
  it("writes RFC 4180: quotes cells with a separator, quote, CR or LF; CRLF after every record", () => {
    const text = renderRecords([["a,b", "c\rd", "e\nf", "g\"h", "plain", ""], ["=1", "-2", "'=3", "x", "y", "z"]])
    expect(text).toBe("\"a,b\",\"c\rd\",\"e\nf\",\"g\"\"h\",plain,\r\n'=1,'-2,''=3,x,y,z\r\n")
    expect(parse(text)).toEqual([["a,b", "c\rd", "e\nf", "g\"h", "plain", ""], ["'=1", "'-2", "''=3", "x", "y", "z"]])
    expect(renderRecords([])).toBe("")
  })

  it("round-trips any cells through csv-parse", () => {
    fc.assert(fc.property(fc.array(fc.array(fc.fullUnicodeString(), { minLength: 2, maxLength: 5 }), { minLength: 1, maxLength: 5 }), (records) => {
      const width = records[0]!.length
      const rows = records.map((r) => Array.from({ length: width }, (_, i) => r[i] ?? ""))
      const parsed = parse(renderRecords(rows), { relax_column_count: true }) as Array<Array<string>>
      expect(parsed.map((r) => r.map(restore))).toEqual(rows)
    }))
  })

  it.effect("a document is the header line, then one piece per non-empty batch", () =>
    Effect.gen(function*() {
      const columns = [{ header: "n", cell: (n: number) => String(n) }, { header: "neg", cell: (n: number) => (n % 2 === 0 ? null : String(-n)) }]
      const pieces = yield* Stream.runCollect(csvDocument(columns, Stream.make([1, 2], [], [3])))
      expect([...pieces]).toEqual(["n,neg\r\n", "1,'-1\r\n2,\r\n", "3,'-3\r\n"])
    }))

  it("names attachments with safe characters only", () => {
    expect(attachmentName(["contacts", "acme"], "2026-11-23")).toBe("contacts-acme-2026-11-23.csv")
    expect(attachmentName(["contacts", "a\"b/c d;é"], "2026-11-23")).toBe("contacts-a-b-c-d-2026-11-23.csv")
  })
})

describe("separator detection", () => {
  it("takes the most frequent of comma, semicolon and tab outside quotes in the header row", () => {
    expect(detectDelimiter("a,b,c\n1;2;3;4;5\n")).toEqual({ delimiter: ",", start: 0 })
    expect(detectDelimiter("First name;Last name;E-mail\r\nA,B;C;D\r\n")).toEqual({ delimiter: ";", start: 0 })
    expect(detectDelimiter("a\tb\tc\n")).toEqual({ delimiter: "\t", start: 0 })
    expect(detectDelimiter("\"x;y;z\",b\n")).toEqual({ delimiter: ",", start: 0 })
    expect(detectDelimiter("\"a,b\nc,d\";e;f\n")).toEqual({ delimiter: ";", start: 0 })
    expect(detectDelimiter("email\n")).toEqual({ delimiter: ",", start: 0 })
    expect(detectDelimiter("a;b,c\n")).toEqual({ delimiter: ",", start: 0 })
  })

  it("obeys a first line sep=<c>, which is not part of the table", () => {
    expect(detectDelimiter("sep=;\r\na,b;c\r\n")).toEqual({ delimiter: ";", start: 7 })
    expect(detectDelimiter("SEP=|\nemail|x\n")).toEqual({ delimiter: "|", start: 6 })
  })
})

describe("reading a CSV", () => {
  it.effect("BOM, CRLF, quoted separators and line breaks, stray quotes, spaces after separators", () =>
    Effect.gen(function*() {
      const result = yield* read("\ufeffEmail;First name;Surname\r\n" +
        "a@x.org;\"Ada; \"\"the first\"\"\";\"Love\r\nlace\"\r\n" +
        "b@x.org; \"Bo\";O\"Brien\r\n")
      const table = Either.getOrThrow(result)
      expect(table.delimiter).toBe(";")
      expect(table.rows).toEqual([
        { row: 1, cells: ["a@x.org", "Ada; \"the first\"", "Love\r\nlace"] },
        { row: 2, cells: ["b@x.org", "Bo", "O\"Brien"] }
      ])
      expect(table.unknownColumns).toEqual([])
      expect(table.errors.size).toBe(0)
    }))

  it.effect("numbers rows from the first record after the header, blank ones counted but skipped", () =>
    Effect.gen(function*() {
      const table = Either.getOrThrow(yield* read("\n\nemail,firstName\n\na@x.org,A\n , \nb@x.org,B\n\n"))
      expect(table.rows.map((r) => [r.row, r.cells[0]])).toEqual([[2, "a@x.org"], [4, "b@x.org"]])
      expect(table.count).toBe(2)
    }))

  it.effect("short rows read as empty cells; cells past the header are an error unless empty", () =>
    Effect.gen(function*() {
      const table = Either.getOrThrow(yield* read("email,firstName,lastName\na@x.org\nb@x.org,B,C,,\nc@x.org,C,D,extra\n"))
      expect(table.rows.map((r) => r.cells)).toEqual([["a@x.org", "", ""], ["b@x.org", "B", "C"], ["c@x.org", "C", "D"]])
      expect(table.errors.report().errors).toEqual([
        { row: 3, column: null, message: "has 4 cells but the header has 3: is a separator missing from the header, or a quote from a cell?" }
      ])
    }))

  it.effect("NUL in a cell is a row error naming the column; formula prefixes come off; cells are trimmed", () =>
    Effect.gen(function*() {
      const table = Either.getOrThrow(yield* read("email,firstName,custom:Diet\n a@x.org ,A\u0000,'=1\n'-b@x.org,'@x,''=2\n"))
      expect(table.rows.map((r) => r.cells)).toEqual([["a@x.org", "", "=1"], ["-b@x.org", "@x", "'=2"]])
      expect(table.errors.report().errors).toEqual([{ row: 1, column: "firstName", message: "holds the NUL character (U+0000)" }])
    }))

  it.effect("reports unknown columns, and headerless columns only when they hold data", () =>
    Effect.gen(function*() {
      const table = Either.getOrThrow(yield* read("email,,Shoe size,,\na@x.org,,44,,x\n"))
      expect(table.unknownColumns).toEqual(["Shoe size", "(column 5, no header)"])
    }))

  it.effect("refuses empty files, unclosed quotes and too many rows with a clear message", () =>
    Effect.gen(function*() {
      expect(refusal(yield* read(""))).toMatch(/empty/)
      expect(refusal(yield* read("\ufeff  \r\n"))).toMatch(/empty/)
      expect(refusal(yield* read("email\n\"a@x.org\n"))).toMatch(/^The CSV could not be read: Quote Not Closed/)
      expect(refusal(yield* read("email\na\nb\nc\n", 2))).toBe("The CSV has more than 2 rows: split it into several imports")
      expect(Either.getOrThrow(yield* read("email\na\n\n\nb\n", 2)).rows).toHaveLength(2)
    }))

  it.effect("refuses a header of more than 2,000 columns before reading a row; at 2,000, short rows skip the headerless ones", () =>
    Effect.gen(function*() {
      // a header of 200,000 empty columns over 3,000 one-cell rows was 600 million looks, 11 s of a blocked event loop
      const wide = `email${",".repeat(200_000)}\n${"x@y.org\n".repeat(3_000)}`
      expect(refusal(yield* read(wide))).toBe("The header row has 200001 columns; an import reads at most 2000")
      expect(refusal(yield* read(`email,${Array.from({ length: 2_000 }, (_, i) => `c${i}`).join(",")}\na@x.org\n`)))
        .toBe("The header row has 2001 columns; an import reads at most 2000")
      const widest = Either.getOrThrow(yield* read(`email${",".repeat(1_999)}\n${"x@y.org\n".repeat(3_000)}a@x.org${",".repeat(1_998)},late\n`))
      expect(widest.rows).toHaveLength(3_001)
      expect(widest.unknownColumns).toEqual(["(column 2000, no header)"])
    }))

  it.effect("reads a file far larger than one slice, cells split across slices included", () =>
    Effect.gen(function*() {
      const rows = Array.from({ length: 20_000 }, (_, i) => `p${i}@x.org,"Name ${i}, with comma and 😀 ${"é".repeat(i % 7)}",L${i}`)
      const table = Either.getOrThrow(yield* read(`email,firstName,lastName\r\n${rows.join("\r\n")}\r\n`))
      expect(table.rows).toHaveLength(20_000)
      expect(table.rows[19_999]).toEqual({ row: 20_000, cells: ["p19999@x.org", `Name 19999, with comma and 😀 ${"é".repeat(19_999 % 7)}`.trim(), "L19999"] })
      expect(table.rows[19_998]!.cells[1]).toBe(`Name 19998, with comma and 😀 ${"é".repeat(19_998 % 7)}`)
    }))
})

describe("request bodies", () => {
  it("takes UTF-8 (a BOM kept for the reader), refuses UTF-16 and other bytes, saying where", () => {
    expect(decodeCsvBytes(Buffer.from("\ufeffemail\né\n"))).toEqual(Either.right("\ufeffemail\né\n"))
    const latin1 = Buffer.from("email\nRen\xe9\n", "latin1")
    expect(Either.getLeft(decodeCsvBytes(latin1)).pipe((o) => o._tag === "Some" && o.value.message)).toBe(
      "The CSV is not valid UTF-8 (line 2, byte 10): save it as \"CSV UTF-8\" and send it again"
    )
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("email\n", "utf16le")])
    expect(Either.getLeft(decodeCsvBytes(utf16)).pipe((o) => o._tag === "Some" && o.value.message)).toMatch(/UTF-16/)
  })

  it("finds the first invalid UTF-8 byte as a strict decoder would", () => {
    const cases: Array<[Array<number>, number]> = [
      [[0x61, 0x62], -1],
      [[0xc3, 0xa9], -1],
      [[0xf0, 0x9f, 0x98, 0x80], -1],
      [[0x61, 0xc0, 0xaf], 1], // overlong
      [[0xe0, 0x80, 0xaf], 0], // overlong
      [[0xed, 0xa0, 0x80], 0], // surrogate
      [[0xf4, 0x90, 0x80, 0x80], 0], // past U+10FFFF
      [[0x61, 0xe2, 0x82], 1], // cut short
      [[0x80], 0]
    ]
    for (const [bytes, offset] of cases) expect(firstInvalidUtf8(Uint8Array.from(bytes)), bytes.join(",")).toBe(offset)
    fc.assert(fc.property(fc.uint8Array({ maxLength: 12 }), (bytes) => {
      let valid = true
      try {
        new TextDecoder("utf-8", { fatal: true }).decode(bytes)
      } catch {
        valid = false
      }
      expect(firstInvalidUtf8(bytes) === -1).toBe(valid)
    }))
  })

  it("refuses form uploads and charsets other than UTF-8, takes any other content type", () => {
    expect(refusedContentType(undefined)).toBeUndefined()
    for (const type of ["text/csv", "text/csv; charset=utf-8", "text/plain", "application/vnd.ms-excel", "application/x-www-form-urlencoded", "application/json"]) {
      expect(refusedContentType(type), type).toBeUndefined()
    }
    expect(refusedContentType("multipart/form-data; boundary=x")?.message).toMatch(/not as a multipart form upload/)
    expect(refusedContentType("text/csv; charset=\"windows-1252\"")?.message).toMatch(/charset=windows-1252/)
  })

  it("finds the endpoints that take CSV in the API itself", () => {
    const routes = csvBodyRoutes(Api)
    expect(routes.matches("POST", "/person/import")).toBe(true)
    expect(routes.matches("POST", "/person/import/")).toBe(true)
    expect(routes.matches("GET", "/person/import")).toBe(false)
    expect(routes.matches("POST", "/person")).toBe(false)
    expect(routes.matches("PUT", "/person/import")).toBe(false)
    expect(routes.matches("POST", "/person/import/x")).toBe(false)
  })
})

describe("import answers", () => {
  it("list errors by row, at most MAX_LISTED_ERRORS of them, and answer 422 for a refused real import", () => {
    const errors = new RowErrors()
    for (let row = MAX_LISTED_ERRORS + 5; row >= 1; row--) errors.add(row, "email", "bad")
    const report = errors.report()
    expect(report.errors).toHaveLength(MAX_LISTED_ERRORS)
    expect(report.errors[0]!.row).toBe(1)
    expect(report.errorsOmitted).toBe(5)
    const base = { rows: 1, created: 0, updated: 0, unchanged: 0, unknownColumns: [] }
    expect(importAnswer({ dryRun: true, ...base, errors: [{ row: 1, column: "email", message: "bad" }] }).status).toBe(200)
    expect(importAnswer({ dryRun: false, ...base, errors: [] }).status).toBe(200)
    expect(importAnswer({ dryRun: false, ...base, errors: [{ row: 1, column: "email", message: "bad" }] }).status).toBe(422)
  })
})

describe("multiselect cells", () => {
  const field: FieldDef = {
    id: 1,
    publicId: "f",
    name: "Tags",
    type: "multiselect",
    options: [
      new FieldOption({ id: "o1", value: "VIP", color: "#000" }),
      new FieldOption({ id: "o2", value: "a;b", color: "#000" }),
      new FieldOption({ id: "o3", value: "a", color: "#000" })
    ]
  }

  it("split on ;, keeping an option that holds a ; whole", () => {
    expect(splitOptions(field, "VIP; a;b")).toEqual(["VIP", "a;b"])
    expect(splitOptions(field, "a ; VIP")).toEqual(["a", "VIP"])
    expect(splitOptions(field, " a;B ;vip;;")).toEqual(["a;B", "vip"])
    expect(splitOptions(field, "Nobody; VIP")).toEqual(["Nobody", "VIP"])
    expect(splitOptions(field, ";")).toEqual([])
  })

  it("are exported as option values joined with '; ', which the import splits back", () => {
    const stored = JSON.stringify(["o2", "o1", "o3"])
    expect(displayValue(field, stored)).toBe(["a;b", "VIP", "a"].join(MULTISELECT_SEPARATOR))
    expect(splitOptions(field, displayValue(field, stored))).toEqual(["a;b", "VIP", "a"])
  })
})
