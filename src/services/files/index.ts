/**
 * Files (`POST/GET /file`, `GET/PUT /file/{id}`) and the store a dispute's evidence uses. The
 * bytes are kept in the database with the rest of the merchant's state (a reset, a snapshot take
 * them too); the type is read from them (./content.ts), never from the name. Vocabulary
 * (docs/architecture.md, "Services"): `get`, `list`, `create`, `update`; `store` (in the caller's
 * unit of work), `getRow`, `toRecord`, `content` (the bytes behind public_url).
 */
import type { Database, Executor } from "../../storage/database";
import * as repo from "../../storage/repositories/files";
import type { FileRow } from "../../storage/repositories/files";
import type { SandboxClock } from "../clock";
import type { Listing, PageRequest } from "../../domain/pagination";
import { invalidState, notFound } from "../../domain/errors";
import type { FileRecord } from "../../domain/schemas/files";
import { apiUserId } from "../self";
import { humanSize, sniff, type FileKind } from "./content";

export type { FileRow };

export const EVIDENCE_FIXED_MESSAGE =
  "A dispute's evidence keeps its file and tag: delete it (DELETE /file/dispute/{id}) and upload another.";

/** What an upload carries: a name, maybe a tag, and the bytes. */
export interface FileInput {
  name: string;
  tag?: string | null;
  file: Blob;
}

/** A stored file as public_url serves it. */
export interface FileContent {
  row: FileRow;
  bytes: Uint8Array;
}

export class FileService {
  constructor(
    private readonly db: Database,
    private readonly clock: SandboxClock,
    private readonly publicUrl: () => string,
  ) {}

  /** The record of a stored row. */
  toRecord(row: FileRow): FileRecord {
    const size: { width?: number; height?: number } =
      row.width !== null && row.height !== null ? { width: row.width, height: row.height } : {};
    return {
      id: row.id,
      merchant_id: row.merchant_id,
      user_id: apiUserId(row.merchant_id),
      name: row.name,
      tag: row.tag,
      path: `${row.tag ?? "file"}/${row.id}.${row.extension}`,
      public_url: `${this.publicUrl()}/files/${row.id}`,
      dispute_id: row.dispute_id,
      meta: {
        filesize_bytes: row.size_bytes,
        filesize: humanSize(row.size_bytes),
        extension: row.extension,
        size,
        mime: row.mime,
      },
      created_at: row.created_at,
      updated_at: row.updated_at,
      deleted_at: row.deleted_at,
    };
  }

  /** GET /file/{id}: the record (deleted evidence too, with deleted_at), or a 404. */
  async get(merchantId: string, id: string, ex: Executor = this.db): Promise<FileRecord> {
    return this.toRecord(await this.getRow(ex, merchantId, id));
  }

  async getRow(ex: Executor, merchantId: string, id: string): Promise<FileRow> {
    const row = await repo.findFile(ex, merchantId, id);
    if (!row) throw notFound("File");
    return row;
  }

  /** GET /file: the merchant's live files, newest first (`tag` keeps one tag's). */
  async list(merchantId: string, filters: { tag?: string }, page: PageRequest): Promise<Listing<FileRecord>> {
    const { rows, total } = await repo.listFiles(this.db, merchantId, filters, {
      limit: page.perPage,
      offset: page.offset,
    });
    return { rows: rows.map((row) => this.toRecord(row)), total };
  }

  /** POST /file: reads the bytes, refuses what may not be kept, stores the rest. */
  async create(merchantId: string, input: FileInput): Promise<FileRecord> {
    const bytes = new Uint8Array(await input.file.arrayBuffer());
    const kind = await sniff(bytes);
    return this.db.transaction(async (tx) =>
      this.toRecord(
        await this.store(tx, merchantId, { name: input.name, tag: input.tag ?? null, disputeId: null }, bytes, kind),
      ),
    );
  }

  /** Stores checked bytes in the caller's unit of work (a dispute's evidence). */
  async store(
    ex: Executor,
    merchantId: string,
    what: { name: string; tag: string | null; disputeId: string | null },
    bytes: Uint8Array,
    kind: FileKind,
  ): Promise<FileRow> {
    const now = this.clock.timestamp(merchantId);
    const row: FileRow = {
      id: crypto.randomUUID(),
      merchant_id: merchantId,
      name: what.name,
      tag: what.tag,
      dispute_id: what.disputeId,
      extension: kind.extension,
      mime: kind.mime,
      size_bytes: bytes.byteLength,
      width: kind.width,
      height: kind.height,
      created_at: now,
      updated_at: now,
      deleted_at: null,
    };
    await repo.insertFile(ex, { ...row, content: bytes });
    return row;
  }

  /** PUT /file/{id}: a new name, tag or file (each optional); evidence keeps its tag and bytes. */
  async update(merchantId: string, id: string, input: Partial<FileInput>): Promise<FileRecord> {
    const bytes = input.file ? new Uint8Array(await input.file.arrayBuffer()) : undefined;
    const kind = bytes ? await sniff(bytes) : undefined;
    return this.db.transaction(async (tx) => {
      const row = await this.getRow(tx, merchantId, id);
      if (row.dispute_id !== null && (input.file !== undefined || input.tag !== undefined)) {
        throw invalidState(EVIDENCE_FIXED_MESSAGE);
      }
      const content =
        bytes && kind
          ? {
              bytes,
              extension: kind.extension,
              mime: kind.mime,
              size_bytes: bytes.byteLength,
              width: kind.width,
              height: kind.height,
            }
          : undefined;
      await repo.updateFile(tx, id, {
        name: input.name ?? row.name,
        tag: input.tag === undefined ? row.tag : input.tag,
        updated_at: this.clock.timestamp(merchantId),
        content,
      });
      return this.get(merchantId, id, tx);
    });
  }

  /** The bytes behind public_url, or undefined for none (or a deleted file). */
  async content(id: string): Promise<FileContent | undefined> {
    const found = await repo.findFileContent(this.db, id);
    if (!found || found.deleted_at !== null) return undefined;
    const { content, ...row } = found;
    return { row, bytes: content };
  }
}
