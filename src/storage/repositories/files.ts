/**
 * Files: their bytes (a BLOB on SQLite, bytea on PostgreSQL) and what was read from them. Lists
 * and records never read the bytes; only serving a file does.
 */
import { sql, type Executor } from "../database";
import { sameMerchant } from "./keys";
import { insertionOrder } from "./order";

export interface FileRow {
  id: string;
  merchant_id: string;
  name: string;
  tag: string | null;
  dispute_id: string | null;
  extension: string;
  mime: string;
  size_bytes: number;
  width: number | null;
  height: number | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

/** The columns of a record (everything but the bytes). */
const COLUMNS = sql.raw(
  "id, merchant_id, name, tag, dispute_id, extension, mime, size_bytes, width, height, created_at, updated_at, deleted_at",
);

/** A row as read: PostgreSQL answers BIGINT as text. */
function normalize(row: FileRow): FileRow {
  return { ...row, size_bytes: Number(row.size_bytes) };
}

export async function findFile(ex: Executor, merchantId: string, id: string): Promise<FileRow | undefined> {
  const row = await ex.get<FileRow>(
    sql`SELECT ${COLUMNS} FROM files WHERE id = ${id} AND ${sameMerchant(ex, merchantId)}`,
  );
  return row && normalize(row);
}

/** A file and its bytes, of any merchant (public_url carries the unguessable id). */
export async function findFileContent(
  ex: Executor,
  id: string,
): Promise<(FileRow & { content: Uint8Array }) | undefined> {
  const row = await ex.get<FileRow & { content: Uint8Array }>(
    sql`SELECT ${COLUMNS}, content FROM files WHERE id = ${id}`,
  );
  return row && { ...normalize(row), content: row.content };
}

/** The bytes of a dispute's live evidence files, oldest first (to read its evidence). */
export function evidenceContents(ex: Executor, disputeId: string): Promise<{ name: string; content: Uint8Array }[]> {
  return ex.all(
    sql`SELECT name, content FROM files WHERE dispute_id = ${disputeId} AND deleted_at IS NULL
        ORDER BY created_at, ${insertionOrder(ex)}`,
  );
}

/** A dispute's live evidence files, oldest first. */
export async function evidenceFiles(ex: Executor, disputeId: string): Promise<FileRow[]> {
  const rows = await ex.all<FileRow>(
    sql`SELECT ${COLUMNS} FROM files WHERE dispute_id = ${disputeId} AND deleted_at IS NULL
        ORDER BY created_at, ${insertionOrder(ex)}`,
  );
  return rows.map(normalize);
}

export interface FileFilters {
  tag?: string;
}

/** The merchant's live files, newest first. */
export async function listFiles(
  ex: Executor,
  merchantId: string,
  filters: FileFilters,
  page: { limit: number; offset: number },
): Promise<{ rows: FileRow[]; total: number }> {
  const where = sql`merchant_id = ${merchantId} AND deleted_at IS NULL ${
    filters.tag === undefined ? sql`` : sql`AND tag = ${filters.tag}`
  }`;
  const total = Number((await ex.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM files WHERE ${where}`))!.n);
  const rows = await ex.all<FileRow>(
    sql`SELECT ${COLUMNS} FROM files WHERE ${where}
        ORDER BY created_at DESC, ${insertionOrder(ex)} DESC LIMIT ${page.limit} OFFSET ${page.offset}`,
  );
  return { rows: rows.map(normalize), total };
}

export async function insertFile(ex: Executor, row: FileRow & { content: Uint8Array }): Promise<void> {
  await ex.run(
    sql`INSERT INTO files (id, merchant_id, name, tag, dispute_id, extension, mime, size_bytes, width, height, content,
          created_at, updated_at)
        VALUES (${row.id}, ${row.merchant_id}, ${row.name}, ${row.tag}, ${row.dispute_id}, ${row.extension},
          ${row.mime}, ${row.size_bytes}, ${row.width}, ${row.height}, ${row.content}, ${row.created_at},
          ${row.updated_at})`,
  );
}

/** Changes the name and tag, and the bytes with what was read from them when `content` is given. */
export async function updateFile(
  ex: Executor,
  id: string,
  change: Pick<FileRow, "name" | "tag" | "updated_at"> & {
    content?: { bytes: Uint8Array } & Pick<FileRow, "extension" | "mime" | "size_bytes" | "width" | "height">;
  },
): Promise<void> {
  const content = change.content;
  await ex.run(
    sql`UPDATE files SET name = ${change.name}, tag = ${change.tag}, updated_at = ${change.updated_at}
        ${
          content
            ? sql`, content = ${content.bytes}, extension = ${content.extension}, mime = ${content.mime},
                  size_bytes = ${content.size_bytes}, width = ${content.width}, height = ${content.height}`
            : sql``
        }
        WHERE id = ${id}`,
  );
}

export async function deleteFile(ex: Executor, id: string, at: string): Promise<void> {
  await ex.run(sql`UPDATE files SET deleted_at = ${at}, updated_at = ${at} WHERE id = ${id}`);
}

/** How many live evidence files a dispute has. */
export async function countEvidence(ex: Executor, disputeId: string): Promise<number> {
  const row = await ex.get<{ n: number }>(
    sql`SELECT COUNT(*) AS n FROM files WHERE dispute_id = ${disputeId} AND deleted_at IS NULL`,
  );
  return Number(row?.n ?? 0);
}
