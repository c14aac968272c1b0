export { Budget, type BudgetSettings, type CallerBudget, type Share } from './budget.js';
export {
  Ledger,
  OVERDRAW_WAIT_MS,
  type Grant,
  type LedgerAdmission,
  type SpentLimit,
} from './ledger.js';
export {
  BudgetWindowSchema,
  BudgetWindows,
  type BudgetWindow,
  type WindowDecision,
} from './windows.js';
