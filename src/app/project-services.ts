import type { LoadedConfig } from "../config/load-config.js";
import { CheckpointRepository } from "../store/checkpoint-repository.js";
import { DecisionEntries } from "../content-store/decision-entries.js";
import { UniversalContentStore } from "../content-store/universal-content-store.js";
import type { Embedder } from "../embedding/embedder.js";
import { INTERACTIVE_COMMIT_SLICE_MS, IndexWriter } from "../indexer/index-writer.js";
import { ProjectIndexer } from "../indexer/project-indexer.js";
import { VectorBackfill } from "../indexer/vector-backfill.js";
import { FileWorkerPool } from "../indexer/worker-pool.js";
import { ConsentStore } from "../project/consent.js";
import { IndexLock } from "../project/index-lock.js";
import type { GrepIndex } from "../agent/tools/grep-files.js";
import { GrepThread } from "../agent/tools/grep-thread.js";
import { FirstWalkListing } from "./grep-first-walk.js";
import { createGrepIndex } from "./grep-index.js";
import { Ripgrep } from "../agent/tools/grep-ripgrep.js";
import { ForegroundWork } from "../indexer/foreground-work.js";
import { RACY_WINDOW_MS } from "../indexer/directory-state.js";
import { WatchedChanges } from "../indexer/watched-changes.js";
import type { ProjectPaths } from "../project/project-paths.js";
import { CodeVectorIndex } from "../search/code-vector-index.js";
import { HybridCodeSearcher } from "../search/hybrid-code-searcher.js";
import { KnowledgeStore } from "../content-store/knowledge-store.js";
import { KnowledgeRepository } from "../store/knowledge-repository.js";
import { InquiryRepository } from "../store/inquiry-repository.js";
import { LearningRepository } from "../store/learning-repository.js";
import { PatternRepository } from "../store/pattern-repository.js";
import { PipelineRepository } from "../store/pipeline-repository.js";
import { RoutingRepository } from "../store/routing-repository.js";
import { Inquiries } from "../knowledge/session/inquiries.js";
import { UserKnowledge } from "../knowledge/session/user-knowledge.js";
import { PersistentFullText } from "../search/persistent-full-text.js";
import { EntryRepository } from "../store/entry-repository.js";
import { DirectoryStateRepository } from "../store/directory-state-repository.js";
import { releaseMappedPagesWhenIdle } from "../store/database.js";
import { FileSketches } from "../store/file-sketches.js";
import { FileRepository } from "../store/file-repository.js";
import { FullTextRepository } from "../store/full-text-repository.js";
import { HandoffRepository } from "../store/handoff-repository.js";
import { SessionRepository } from "../store/session-repository.js";
import { VectorStore } from "../store/vector-store.js";
import { loadProjectConfig } from "./project-config.js";
import { openProjectStore, type OpenProjectStoreOptions } from "./project-store.js";

export interface OpenProjectOptions extends OpenProjectStoreOptions {
  /** Someone is typing: index commits yield to the event loop every few milliseconds. */
  interactive?: boolean;
  /** See `ScanOptions.racyWindowMs`: tests that change directories faster than the clock ticks set it. */
  racyWindowMs?: number;
  /** See `ProjectIndexerDeps.segmentedFullTextAboveFiles`: tests set it low to build a small project's snapshot on disk. */
  segmentedFullTextAboveFiles?: number;
  /** See `ProjectIndexerDeps.largePassAboveFiles`: tests set it low to make a small refresh large. */
  largePassAboveFiles?: number;
}

/** Everything one project needs, wired once. The UI and the agent receive narrow pieces of it. */
export interface ProjectServices {
  paths: ProjectPaths;
  loadedConfig: LoadedConfig;
  /** What opening changed that the user should be told once (see `ProjectStore.notices`). */
  notices: string[];
  files: FileRepository;
  /** The indexed files' trigram sketches, with which grep rules files out without reading them. */
  fileSketches: FileSketches;
  entries: EntryRepository;
  sessions: SessionRepository;
  /** Files as they were before agent edits (/undo, /rewind, /diff). */
  checkpoints: CheckpointRepository;
  /** Agent instances and their handoffs, quality observations, learned profiles, task lists. */
  handoffs: HandoffRepository;
  /** The guide's routing decisions and the agents' affinities. */
  routing: RoutingRepository;
  /** What recurs across sessions: tool errors, user corrections, files changed, test results. */
  patterns: PatternRepository;
  /** Pipeline runs and their stages. */
  pipelines: PipelineRepository;
  /** Self-tuning retrieval's learned state. */
  learning: LearningRepository;
  /** todo_write's decisions as searchable entries, with the one-time copy of older task lists' decisions. */
  decisions: DecisionEntries;
  vectors: VectorStore;
  embedder: Embedder;
  codeFullText: PersistentFullText;
  historyFullText: PersistentFullText;
  knowledgeFullText: PersistentFullText;
  codeVectorIndex: CodeVectorIndex;
  indexer: ProjectIndexer;
  backfill: VectorBackfill;
  codeSearcher: HybridCodeSearcher;
  contentStore: UniversalContentStore;
  /** Knowledge that lasts across sessions: rules, preferences, learnings, skills. */
  knowledge: KnowledgeStore;
  /** Questions for the user when knowledge was missing; an answer becomes knowledge. */
  inquiries: Inquiries;
  /** The user's own knowledge, for every project (`$SYLK_HOME/knowledge.db`), opened on first use. */
  userKnowledge: UserKnowledge;
  consent: ConsentStore;
  indexLock: IndexLock;
  /** grep's matching threads, warm across the process's sessions and sub-agents. */
  grepThread: GrepThread;
  /** grep's files from the index: no walk per call, and files ruled out by the pattern's literals. */
  grepIndex: GrepIndex;
  /** ripgrep when it is on the PATH: grep's lister where the index would have to check the disk first. */
  ripgrep: Ripgrep | undefined;
  /** What the project watcher saw change since the index read it, for the background indexing to tell and grep to ask. */
  watchedChanges: WatchedChanges;
  /** Searches the user waits on (grep), during which a first index in its own process pauses. */
  foregroundWork: ForegroundWork;
  /** Stops worker threads and closes the database. */
  close(): Promise<void>;
}

/** The composition root of the engine: opens the project's database and builds its services. */
export function openProject(options: OpenProjectOptions): ProjectServices {
  const { paths, loadedConfig, embedder, db, notices } = openProjectStore(options, loadProjectConfig(options));
  const { config } = loadedConfig;
  const files = new FileRepository(db);
  const entries = new EntryRepository(db);
  const vectors = new VectorStore(db, embedder.id, embedder.dimensions);
  const fullTextRepository = new FullTextRepository(db);
  const codeFullText = new PersistentFullText(fullTextRepository, "code");
  const historyFullText = new PersistentFullText(fullTextRepository, "history");
  const knowledgeFullText = new PersistentFullText(fullTextRepository, "knowledge");
  const knowledge = new KnowledgeStore({ db, repository: new KnowledgeRepository(db), fullText: knowledgeFullText });
  const builtinEmbedder = config.embedding.provider === "builtin";
  // Scans on a second thread once warm, beside full-text scoring; an interactive session scans on its own thread,
  // since a scan reads only the query's dimensions (≈ 3 ms at 525k vectors) and the thread's heap cost it ~30 MB.
  const codeVectorIndex = new CodeVectorIndex(vectors, () => fullTextRepository.dataVersion(), !options.interactive);
  const indexer = new ProjectIndexer({
    root: paths.root,
    config: config.index,
    db,
    files,
    directories: new DirectoryStateRepository(db),
    firstWalk: new DirectoryStateRepository(db, "first_walk_states"),
    writer: new IndexWriter(
      db,
      files,
      vectors,
      codeFullText,
      codeVectorIndex,
      options.interactive ? INTERACTIVE_COMMIT_SLICE_MS : undefined,
    ),
    fullText: codeFullText,
    otherFullText: [historyFullText, knowledgeFullText],
    createPool: () => new FileWorkerPool({ threads: config.index.workerThreads }),
    processSmallWorkInline: !options.interactive,
    segmentedFullTextAboveFiles: options.segmentedFullTextAboveFiles,
    largePassAboveFiles: options.largePassAboveFiles,
    embeddingDimensions: builtinEmbedder ? embedder.dimensions : null,
    racyWindowMs: options.racyWindowMs,
  });
  const contentStore = new UniversalContentStore({
    db,
    entries,
    fullText: historyFullText,
    vectors,
    embedder,
    config: config.search,
  });
  const handoffs = new HandoffRepository(db);
  const grepThread = new GrepThread();
  const grepFullText = new PersistentFullText(fullTextRepository, "code", { searchWithoutLoading: true });
  const userKnowledge = new UserKnowledge(paths.sylkHome);
  const watchedChanges = new WatchedChanges();
  const fileSketches = new FileSketches(db);
  const racyWindowMs = options.racyWindowMs ?? RACY_WINDOW_MS;
  return {
    paths,
    loadedConfig,
    notices,
    files,
    fileSketches,
    entries,
    sessions: new SessionRepository(db),
    checkpoints: new CheckpointRepository(db),
    handoffs,
    routing: new RoutingRepository(db),
    patterns: new PatternRepository(db),
    pipelines: new PipelineRepository(db),
    learning: new LearningRepository(db),
    vectors,
    embedder,
    codeFullText,
    historyFullText,
    knowledgeFullText,
    codeVectorIndex,
    indexer,
    backfill: new VectorBackfill({ db, files, entries, vectors, embedder, batchSize: config.embedding.batchSize }),
    codeSearcher: new HybridCodeSearcher({
      files,
      fullText: codeFullText,
      vectors,
      vectorIndex: codeVectorIndex,
      embedder,
      config: config.search,
      afterBulkRead: releaseMappedPagesWhenIdle(db),
    }),
    contentStore,
    knowledge,
    decisions: new DecisionEntries({ db, entries, handoffs, contentStore }),
    inquiries: new Inquiries({ repository: new InquiryRepository(db), knowledge }),
    userKnowledge,
    consent: new ConsentStore(paths),
    indexLock: new IndexLock(paths.indexLock, paths.root),
    grepThread,
    watchedChanges,
    foregroundWork: new ForegroundWork(),
    ripgrep: Ripgrep.onPath(options.env ?? process.env),
    grepIndex: createGrepIndex({
      root: paths.root,
      config: config.index,
      indexer,
      files,
      changes: watchedChanges,
      // Until something loads the code index, grep reads only its terms' postings: loading all of it was most of a first grep.
      fullText: {
        documentsHolding: (term, max) => (codeFullText.isLoaded ? codeFullText : grepFullText).documentsHolding(term, max),
      },
      sketches: fileSketches,
      racyWindowMs,
      firstWalk: new FirstWalkListing({ root: paths.root, config: config.index, indexer, sketches: fileSketches, racyWindowMs }),
    }),
    close: async () => {
      grepThread.close();
      userKnowledge.close();
      await Promise.all([indexer.close(), codeVectorIndex.close()]);
      db.close();
    },
  };
}
