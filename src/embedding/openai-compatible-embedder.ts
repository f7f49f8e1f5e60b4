import { normalize, type Embedder } from "./embedder.js";

/**
 * The shape of an embeddings response, made on first use: `createEmbedder`
 * is on every command's start-up path, and a search with the built-in
 * embedder and no configuration loads no zod at all.
 */
let responseSchema: ReturnType<typeof makeResponseSchema> | undefined;

async function makeResponseSchema() {
  const z = await import("zod/mini");
  return z.object({ data: z.array(z.object({ embedding: z.array(z.number()), index: z.int() })) });
}

export interface OpenAICompatibleEmbedderOptions {
  /** e.g. `http://localhost:11434/v1` (Ollama) or `https://api.openai.com/v1`. */
  baseUrl: string;
  model: string;
  dimensions: number;
  apiKey?: string;
  batchSize: number;
  timeoutMs: number;
  fetch?: typeof fetch;
}

/**
 * Any server speaking OpenAI's `POST /v1/embeddings` (OpenAI, Ollama, vLLM,
 * LM Studio, llama.cpp). Texts are sent in batches; a response of the wrong
 * shape or dimension is an error that names the server and what it sent.
 */
export class OpenAICompatibleEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;
  readonly evidence = "meaning";
  private readonly endpoint: string;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: OpenAICompatibleEmbedderOptions) {
    this.dimensions = options.dimensions;
    this.id = `openai-compatible:${options.model}:${options.dimensions}`;
    this.endpoint = `${options.baseUrl.replace(/\/+$/, "")}/embeddings`;
    this.fetchImpl = options.fetch ?? fetch;
  }

  async embed(texts: readonly string[], _kind: "document" | "query", signal?: AbortSignal): Promise<Float32Array[]> {
    const vectors: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.options.batchSize) {
      vectors.push(...(await this.embedBatch(texts.slice(start, start + this.options.batchSize), signal)));
    }
    return vectors;
  }

  private async embedBatch(input: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const response = await this.fetchImpl(this.endpoint, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
      },
      body: JSON.stringify({ model: this.options.model, input }),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    if (!response.ok) {
      const body = (await response.text()).slice(0, 300);
      throw new Error(`Embedding server ${this.endpoint} answered ${response.status}: ${body}`);
    }
    responseSchema ??= makeResponseSchema();
    const parsed = (await responseSchema).safeParse(await response.json());
    if (!parsed.success) throw new Error(`Embedding server ${this.endpoint} sent an unexpected response shape.`);
    const ordered = [...parsed.data.data].sort((a, b) => a.index - b.index);
    if (ordered.length !== input.length) {
      throw new Error(`Embedding server ${this.endpoint} returned ${ordered.length} vectors for ${input.length} texts.`);
    }
    return ordered.map(({ embedding }) => {
      if (embedding.length !== this.dimensions) {
        throw new Error(
          `Model ${this.options.model} returns ${embedding.length}-dimensional vectors; set embedding.dimensions to ${embedding.length}.`,
        );
      }
      return normalize(Float32Array.from(embedding));
    });
  }
}
