/** The list envelope src/http/page.ts makes from a service's rows and the request (docs/contract.md §5). */
import { describe, expect, test } from "bun:test";
import { pageRequest } from "../../src/domain/pagination";
import { listPage, pageOf } from "../../src/http/page";

describe("the page envelope", () => {
  test("links keep the request's other query parameters and say the page size", () => {
    const page = pageRequest({ page: 2, per_page: 10 });
    const envelope = pageOf({ rows: ["k", "l"], total: 32 }, page, "http://sandbox.test/invoice?status=PAID&page=2");
    expect(envelope).toEqual({
      current_page: 2,
      per_page: 10,
      total: 32,
      last_page: 4,
      from: 11,
      to: 12,
      data: ["k", "l"],
      next_page_url: "http://sandbox.test/invoice?status=PAID&page=3&per_page=10",
      prev_page_url: "http://sandbox.test/invoice?status=PAID&page=1&per_page=10",
    });
  });

  test("a page past the end is empty and points back to the last page", () => {
    const envelope = pageOf(
      { rows: [], total: 3 },
      pageRequest({ page: 5, per_page: 2 }),
      "http://sandbox.test/customer",
    );
    expect(envelope).toMatchObject({ last_page: 2, from: null, to: null, next_page_url: null });
    expect(envelope.prev_page_url).toBe("http://sandbox.test/customer?page=2&per_page=2");
  });

  test("listPage reads the page the query asks for, in the request's envelope", async () => {
    const asked: unknown[] = [];
    const envelope = await listPage(
      { page: "3", per_page: "5" },
      new Request("http://sandbox.test/webhook"),
      async (page) => {
        asked.push(page);
        return { rows: [1], total: 11 };
      },
    );
    expect(asked).toEqual([{ page: 3, perPage: 5, offset: 10 }]);
    expect(envelope).toMatchObject({ current_page: 3, from: 11, to: 11, last_page: 3, next_page_url: null });
  });
});
