/**
 * The `products` section: which `unit_type` values become label values. An allow-list bounds the
 * series however many types the upstream sends; any other is {@link OTHER_PRODUCT}.
 */
import { z } from 'zod';
import { always, reportDuplicates } from './fields.ts';

/** Label value of a unit type not on the allow-list. */
const OTHER_PRODUCT = 'other';
/** Label value of a unit whose `unit_type` is null or empty. */
const UNKNOWN_PRODUCT = 'unknown';

/** Products on the list at most: each is a series of every counted kind at every station. */
const MAX_PRODUCTS = 50;
/** Longest product name accepted, as the label values of the upstream are capped. */
const MAX_PRODUCT_LENGTH = 128;

const productName = z
  .string()
  .min(1)
  .max(MAX_PRODUCT_LENGTH)
  .refine((p) => p !== OTHER_PRODUCT && p !== UNKNOWN_PRODUCT, {
    error: `"${OTHER_PRODUCT}" and "${UNKNOWN_PRODUCT}" are the values of the types off the list and of a missing type`,
  });

/** The `products` config section. */
export const productsSchema = z
  .strictObject({
    label: z
      .boolean()
      .default(false)
      .describe(
        'Add a `unit_type` label to `station_unit_records`, `station_unit_serials` and `station_units_total`: ' +
          `the unit's \`unit_type\` when it is on \`allow\`, \`${OTHER_PRODUCT}\` for any other type, ` +
          `\`${UNKNOWN_PRODUCT}\` when it is null or empty. Off: the series carry no such label.`,
      ),
    allow: z
      .array(productName)
      .max(MAX_PRODUCTS)
      .default([])
      .superRefine((list, ctx) => reportDuplicates(list, ctx, { key: (p) => p, what: 'product' }), always)
      .describe(
        `The \`unit_type\` values exported as themselves (at most ${MAX_PRODUCTS}); required by \`label\` and by ` +
          'control names charted `by_product`.',
      ),
  })
  .prefault({})
  .describe(
    'Products (the upstream `unit_type`) as a label: on the unit counts, and as the key of control charts ' +
      'whose name sets `by_product` (docs/measurements.md, "Products").',
  );

/** The validated `products` section. */
export type ProductsConfig = z.output<typeof productsSchema>;

/** The most `unit_type` (or `product`) label values a config exports: its list, `other` and `unknown`. */
export function productValues(products: ProductsConfig): number {
  return products.allow.length + 2;
}

/**
 * The label value of a unit's `unit_type`: itself when on `allow`, {@link OTHER_PRODUCT} for any
 * other type, {@link UNKNOWN_PRODUCT} when null or empty.
 */
export function productLabeller(allow: readonly string[]): (unitType: string | null) => string {
  const listed = new Set(allow);
  return (t) => (t === null || t === '' ? UNKNOWN_PRODUCT : listed.has(t) ? t : OTHER_PRODUCT);
}
