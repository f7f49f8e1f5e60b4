import * as z from "zod/mini";
import type { CodeSearchParams } from "./protocol.js";

/** Requests the server accepts; anything else is answered with an error. */
const codeSearchParamsSchema = z.strictObject({
  query: z.string().check(z.maxLength(10_000)),
  limit: z.optional(z.int().check(z.minimum(1), z.maximum(1000))),
  signals: z.optional(z.array(z.enum(["fulltext", "vector"]))),
  perFile: z.optional(z.int().check(z.minimum(1), z.maximum(100))),
});

export const requestSchema = z.discriminatedUnion("method", [
  z.strictObject({ id: z.int(), method: z.literal("hello"), version: z.int() }),
  z.strictObject({ id: z.int(), method: z.literal("codeSearch"), params: codeSearchParamsSchema }),
  /** Waits until the serving process's index has caught up with the files on disk. */
  z.strictObject({ id: z.int(), method: z.literal("catchUp") }),
]);
export type WarmRequest = z.infer<typeof requestSchema>;

// The schema and the hand-written type clients use must describe the same params.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const paramsAgree: Same<z.infer<typeof codeSearchParamsSchema>, CodeSearchParams> = true;
void paramsAgree;
