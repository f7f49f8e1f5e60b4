import type { SqliteDatabase } from "./database.js";

/** A question for the user, recorded when knowledge was missing. */
export interface Inquiry {
  id: string;
  sessionId: string | null;
  topic: string;
  question: string;
  /** Why it was asked. */
  context: string;
  status: "pending" | "answered" | "dismissed";
  answer: string | null;
  knowledgeId: string | null;
  createdAt: number;
  updatedAt: number;
}

interface InquiryRow {
  id: string;
  session_id: string | null;
  topic: string;
  question: string;
  context: string;
  status: Inquiry["status"];
  answer: string | null;
  knowledge_id: string | null;
  created_at: number;
  updated_at: number;
}

/** Inquiries (schema 15). */
export class InquiryRepository {
  constructor(private readonly db: SqliteDatabase) {}

  record(inquiry: Pick<Inquiry, "id" | "sessionId" | "topic" | "question" | "context">, now: number = Date.now()): void {
    this.db
      .prepare("INSERT INTO inquiries (id, session_id, topic, question, context, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
      .run(inquiry.id, inquiry.sessionId, inquiry.topic, inquiry.question, inquiry.context, now, now);
  }

  get(id: string): Inquiry | undefined {
    const row = this.db.prepare<[string], InquiryRow>("SELECT * FROM inquiries WHERE id = ?").get(id);
    return row ? toInquiry(row) : undefined;
  }

  /** Ids starting with `prefix` (users type the first characters). */
  findByPrefix(prefix: string): Inquiry[] {
    const rows = this.db
      .prepare<[string], InquiryRow>("SELECT * FROM inquiries WHERE id LIKE ? ESCAPE '\\' ORDER BY created_at")
      .all(`${prefix.replace(/[\\%_]/g, "\\$&")}%`);
    return rows.map(toInquiry);
  }

  /** The oldest pending questions first: asked longest ago. */
  pending(limit: number): Inquiry[] {
    const rows = this.db
      .prepare<[number], InquiryRow>("SELECT * FROM inquiries WHERE status = 'pending' ORDER BY created_at, rowid LIMIT ?")
      .all(limit);
    return rows.map(toInquiry);
  }

  countPending(): number {
    return this.db.prepare("SELECT count(*) FROM inquiries WHERE status = 'pending'").pluck().get() as number;
  }

  /** Closes a pending inquiry; false when it was not pending. */
  close(
    id: string,
    status: "answered" | "dismissed",
    answer: string | null,
    knowledgeId: string | null,
    now: number = Date.now(),
  ): boolean {
    return (
      this.db
        .prepare("UPDATE inquiries SET status = ?, answer = ?, knowledge_id = ?, updated_at = ? WHERE id = ? AND status = 'pending'")
        .run(status, answer, knowledgeId, now, id).changes === 1
    );
  }
}

function toInquiry(row: InquiryRow): Inquiry {
  return {
    id: row.id,
    sessionId: row.session_id,
    topic: row.topic,
    question: row.question,
    context: row.context,
    status: row.status,
    answer: row.answer,
    knowledgeId: row.knowledge_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
