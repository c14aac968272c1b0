export { priceUsage } from './price-usage.js';
export { overrideCost } from './override-price.js';
export {
  defaultCost,
  describePriceTable,
  hasDefaultPrice,
  loadPriceTable,
  isPriceTableLoaded,
  PRICE_TABLE_SOURCE,
} from './default-price-table.js';
