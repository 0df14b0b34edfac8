// The README's calls, typed by the declarations openapi-typescript generates
// from the served document (clients/check). It only has to compile: a
// request the README sends that the types refuse, or an answer field the
// README reads that they lack, fails CI.
import type { components, paths } from "./stockd";

type Schemas = components["schemas"];
type Created<P extends keyof paths> = paths[P] extends { post: { responses: { 201: { content: { "application/json": infer R } } } } } ? R : never;
type Problem409 = paths["/v1/reservations"]["post"]["responses"][409]["content"]["application/problem+json"];

const location: Schemas["LocationCreateRequest"] = { location: "east", name: "East warehouse", priority: 1 };
const skus: Schemas["SKUCreateRequest"][] = [{ sku: "tee-M", name: "T-shirt M" }, { sku: "mug" }, { sku: "gift-set", bundle: true }];
const receipt: Schemas["ReceiptRequest"] = { sku: "tee-M", location: "east", quantity: 50, reference: "PO-17" };
const pool: Schemas["PoolCreateRequest"] = { pool: "black-friday", kind: "campaign", starts_at: "2026-01-01T00:00:00Z", ends_at: "2026-01-08T00:00:00Z" };
const allocation: Schemas["AllocationRequest"] = { sku: "tee-M", location: "east", to_pool: "black-friday", quantity: 20 };
const bundle: Schemas["BundleCreateRequest"] = { bundle: "gift-set", components: [{ sku: "tee-M", quantity: 1 }, { sku: "mug", quantity: 1 }] };
// The smallest reservation: every field with a server-side default left out.
const minimal: Schemas["ReservationRequest"] = { lines: [{ sku: "tee-M", quantity: 1 }] };
const order: Schemas["ReservationRequest"] = {
  lines: [{ sku: "gift-set", quantity: 2 }, { sku: "tee-M", quantity: 1, pool: "black-friday" }],
  customer_id: "c-42",
  ttl_seconds: 900,
};
const ret: Schemas["ReturnRequest"] = { reservation_id: "r-1", lines: [{ sku: "mug", quantity: 1 }], reference: "RMA-5" };
const release: Schemas["QuarantineReleaseRequest"] = { sku: "mug", location: "east", quantity: 1 };

// What the README reads back.
function reservationId(r: Created<"/v1/reservations">): string {
  return r.id;
}
function bundleAvailable(s: Schemas["Stock"]): number | undefined {
  return s.bundle?.available;
}
function outcome(o: Schemas["RequestOutcome"]): string {
  return `${o.outcome} ${o.status}`;
}
// A refusal's code is one of the documented strings, not unknown.
const refused: Problem409["code"] = "insufficient_stock";

export const calls = { location, skus, receipt, pool, allocation, bundle, minimal, order, ret, release, refused, reservationId, bundleAvailable, outcome };
