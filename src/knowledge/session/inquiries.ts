import { randomUUID } from "node:crypto";
import type { KnowledgeStore } from "../../content-store/knowledge-store.js";
import { maskSecrets } from "../../security/secrets.js";
import type { Inquiry, InquiryRepository } from "../../store/inquiry-repository.js";

/**
 * Pending inquiries: questions an agent records for the user when
 * knowledge is missing. They are in the prompt until answered; an answer is
 * stored as knowledge (source `inquiry`) and closes the question.
 */
export class Inquiries {
  constructor(private readonly deps: { repository: InquiryRepository; knowledge: Pick<KnowledgeStore, "save"> }) {}

  record(input: { sessionId: string | null; topic: string; question: string; context: string }): Inquiry {
    const id = randomUUID();
    this.deps.repository.record({
      id,
      sessionId: input.sessionId,
      topic: maskSecrets(input.topic.trim()).text,
      question: maskSecrets(input.question.trim()).text,
      context: maskSecrets(input.context.trim()).text,
    });
    return this.deps.repository.get(id) as Inquiry;
  }

  countPending(): number {
    return this.deps.repository.countPending();
  }

  pending(limit: number): Inquiry[] {
    return this.deps.repository.pending(limit);
  }

  /** The pending inquiry an id (or the start of one) names; an error that says why when none or several do. */
  find(idOrPrefix: string): Inquiry {
    const matches = this.deps.repository.findByPrefix(idOrPrefix).filter((inquiry) => inquiry.status === "pending");
    if (matches.length === 0) throw new Error(`No pending question has the id ${idOrPrefix}; \`sylk memory list inquiries\` shows them.`);
    if (matches.length > 1) throw new Error(`${matches.length} pending questions start with ${idOrPrefix}; give more of the id.`);
    return matches[0] as Inquiry;
  }

  /** Stores the answer as knowledge and closes the question. */
  answer(idOrPrefix: string, answer: string): { inquiry: Inquiry; knowledgeId: string } {
    const inquiry = this.find(idOrPrefix);
    const item = this.deps.knowledge.save({
      layer: "user_knowledge",
      kind: "fact",
      key: inquiry.topic,
      content: `${inquiry.question} ${answer.trim()}`,
      source: "inquiry",
      details: { inquiry_id: inquiry.id },
      ...(inquiry.sessionId ? { sessionId: inquiry.sessionId } : {}),
    });
    this.deps.repository.close(inquiry.id, "answered", maskSecrets(answer.trim()).text, item.id);
    return { inquiry, knowledgeId: item.id };
  }

  dismiss(idOrPrefix: string): Inquiry {
    const inquiry = this.find(idOrPrefix);
    this.deps.repository.close(inquiry.id, "dismissed", null, null);
    return inquiry;
  }
}
