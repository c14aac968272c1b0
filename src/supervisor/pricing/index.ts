export { priceUsage, type Answered } from './price-usage.js';
export { overrideCost } from './override-price.js';
export {
  defaultCost,
  describePriceTable,
  hasDefaultPrice,
  PRICE_TABLE_SOURCE,
  type PriceHint,
  type PriceTableInfo,
} from './default-price-table.js';
