import type { AgentContext, ContextItem } from "../agent-context.js";
import type { EvictionStrategy } from "./eviction-strategy.js";

/** Points for leaving first: completed topics, older clusters (per day), coherent clusters. */
const COMPLETION_WEIGHT = 50;
const AGE_WEIGHT_PER_DAY = 10;
const COHERENCE_WEIGHT = 20;
/** Items this similar to a cluster's centroid join it. */
const CLUSTER_SIMILARITY = 0.3;
const CONCLUSION_KEYWORDS = ["in conclusion", "to summarize", "therefore", "thus", "recommendation is", "final answer", "in summary"];

interface TopicCluster {
  items: ContextItem[];
  vectors: Float32Array[];
  centroid: Float32Array;
  tokens: number;
}

/**
 * Topic-cluster eviction (academic): evictable items are
 * clustered by embedding, and whole clusters leave together (a reference
 * about one topic is a better reference), the complete, old and coherent
 * ones first.
 */
export class TopicClusterEviction implements EvictionStrategy {
  readonly name = "topic";

  constructor(
    private readonly embed: (text: string) => Float32Array,
    private readonly now: () => number = Date.now,
    private readonly timestampOf: (item: ContextItem) => number = () => Date.now(),
  ) {}

  selectForEviction(context: AgentContext, targetTokens: number): ContextItem[] {
    const clusters = this.cluster(context.evictable());
    const scored = clusters.map((cluster) => ({ cluster, score: this.evictionScore(cluster) })).sort((a, b) => b.score - a.score);
    const selected: ContextItem[] = [];
    let freed = 0;
    for (const { cluster } of scored) {
      if (freed >= targetTokens) break;
      selected.push(...cluster.items);
      freed += cluster.tokens;
    }
    return selected;
  }

  private cluster(items: readonly ContextItem[]): TopicCluster[] {
    const clusters: TopicCluster[] = [];
    for (const item of items) {
      const vector = this.embed(item.text);
      let best: TopicCluster | undefined;
      let bestSimilarity = CLUSTER_SIMILARITY;
      for (const cluster of clusters) {
        const similarity = cosine(vector, cluster.centroid);
        if (similarity >= bestSimilarity) {
          best = cluster;
          bestSimilarity = similarity;
        }
      }
      if (!best) {
        clusters.push({ items: [item], vectors: [vector], centroid: vector, tokens: item.tokens });
        continue;
      }
      best.items.push(item);
      best.vectors.push(vector);
      best.tokens += item.tokens;
      best.centroid = mean(best.vectors);
    }
    return clusters;
  }

  private evictionScore(cluster: TopicCluster): number {
    const last = cluster.items[cluster.items.length - 1];
    const complete = last ? CONCLUSION_KEYWORDS.some((keyword) => last.text.toLowerCase().includes(keyword)) : false;
    const ages = cluster.items.map((item) => this.now() - this.timestampOf(item));
    const averageAgeDays = ages.reduce((sum, age) => sum + age, 0) / Math.max(1, ages.length) / 86_400_000;
    return (complete ? COMPLETION_WEIGHT : 0) + averageAgeDays * AGE_WEIGHT_PER_DAY + coherence(cluster) * COHERENCE_WEIGHT;
  }
}

/** Average pairwise similarity of a cluster's members (1 for a single member). */
function coherence(cluster: TopicCluster): number {
  const { vectors } = cluster;
  if (vectors.length < 2) return 1;
  let total = 0;
  let pairs = 0;
  for (let a = 0; a < vectors.length; a++) {
    for (let b = a + 1; b < vectors.length; b++) {
      total += cosine(vectors[a] as Float32Array, vectors[b] as Float32Array);
      pairs++;
    }
  }
  return total / pairs;
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let index = 0; index < a.length; index++) {
    dot += (a[index] as number) * (b[index] as number);
    normA += (a[index] as number) ** 2;
    normB += (b[index] as number) ** 2;
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}

function mean(vectors: readonly Float32Array[]): Float32Array {
  const result = new Float32Array(vectors[0]?.length ?? 0);
  for (const vector of vectors)
    for (let index = 0; index < result.length; index++) result[index] = (result[index] as number) + (vector[index] as number);
  for (let index = 0; index < result.length; index++) result[index] = (result[index] as number) / vectors.length;
  return result;
}
