import { join } from "node:path";
import { KnowledgeStore } from "../../content-store/knowledge-store.js";
import { PersistentFullText } from "../../search/persistent-full-text.js";
import { openDatabase, type SqliteDatabase } from "../../store/database.js";
import { FullTextRepository } from "../../store/full-text-repository.js";
import { KnowledgeRepository } from "../../store/knowledge-repository.js";

/**
 * The user's own knowledge, for every project: the same store
 * as a project's, in `$SYLK_HOME/knowledge.db`, opened on first use. Only
 * the user's own actions (`save_knowledge(scope: "user")` in their session,
 * `sylk memory add --user`) write it; nothing in a repository can.
 */
export class UserKnowledge {
  private db: SqliteDatabase | undefined;
  private store: KnowledgeStore | undefined;

  constructor(private readonly sylkHome: string) {}

  get path(): string {
    return join(this.sylkHome, "knowledge.db");
  }

  open(): KnowledgeStore {
    if (!this.store) {
      this.db = openDatabase(this.path, { mmap: false });
      this.store = new KnowledgeStore({
        db: this.db,
        repository: new KnowledgeRepository(this.db),
        fullText: new PersistentFullText(new FullTextRepository(this.db), "knowledge"),
      });
    }
    return this.store;
  }

  close(): void {
    this.db?.close();
    this.db = undefined;
    this.store = undefined;
  }
}
