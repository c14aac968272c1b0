export { Budget, type BudgetSettings, type CallerBudget, type Share } from './budget.js';
export { IN_FLIGHT_WAIT_MS, ProviderLimits } from './provider-limits.js';
export { Ledger, OVERDRAW_WAIT_MS, type Grant } from './ledger.js';
export { BudgetWindowSchema, type BudgetWindow } from './windows.js';
