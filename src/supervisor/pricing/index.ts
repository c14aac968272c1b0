export { priceUsage } from './price-usage.js';
export { overrideCost } from './override-price.js';
export {
  defaultCost,
  describePriceTable,
  hasDefaultPrice,
  loadPriceTable,
  preloadPriceTable,
  PRICE_TABLE_SOURCE,
} from './default-price-table.js';
