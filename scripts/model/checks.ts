import type { Check } from './spin.ts';

/**
 * What `npm run model:check` and test/model/model-check.test.ts run. The whole model with
 * every environment action at once is beyond a CI budget (tens of millions of states for one
 * row), so each check is one exhaustive search over the workers, the partner, leases and the
 * breaker together with one group of outside actions; docs/internals/reliability/model.md gives the figures.
 */
const quiet = { PAUSES: 0, CANCELS: 0, RETRY_RUNS: 0, REPAIRS: 0, REFUSALS: 0, SCHEDULES: 0 };
type Bounds = Partial<Record<'ROWS' | 'WORKERS' | 'FAULTS' | 'CRASHES' | 'STALLS' | keyof typeof quiet, number>>;
const defines = (bounds: Bounds) => Object.entries({ ROWS: 1, ...quiet, ...bounds }).map(([name, value]) => `-D${name}=${value}`);

/** Groups of outside actions, each checked with the workers' faults, crashes and takeovers. */
export const scopes: ReadonlyArray<{ name: string; bounds: Bounds; cc?: string[] }> = [
  { name: 'faults, crashes, takeovers, breaker', bounds: { FAULTS: 2, CRASHES: 1, STALLS: 1 } },
  { name: 'pause and resume', bounds: { FAULTS: 1, CRASHES: 1, STALLS: 1, PAUSES: 1 } },
  { name: 'cancel', bounds: { FAULTS: 2, CRASHES: 1, STALLS: 1, CANCELS: 1 } },
  { name: 'retryFailedItems and review', bounds: { FAULTS: 1, CRASHES: 1, STALLS: 1, RETRY_RUNS: 1 } },
  { name: 'refusals and repair', bounds: { FAULTS: 2, CRASHES: 1, STALLS: 1, REFUSALS: 1, REPAIRS: 1 } },
  // Ten million states: here gcc's 17 s of optimising pays for itself (a 34 s search against 60 s).
  { name: 'two rows', bounds: { ROWS: 2, FAULTS: 1, CRASHES: 0, STALLS: 1, CANCELS: 1 }, cc: ['-O1'] },
  // Scheduling (issue 30): approved with a payAt ahead, rescheduled, released, or cancelled while it waits.
  { name: 'scheduled: release, reschedule, cancel', bounds: { FAULTS: 1, CRASHES: 1, STALLS: 1, SCHEDULES: 1, CANCELS: 1 } },
];

/**
 * Issue 38: the approvals of one batch (model/approval-choice.pml), apart from the pay
 * protocol: a batch is sent no earlier than every counted approval's payAt, with exactly the
 * rows they agreed to (P9). Three people, each approving up to three times, any choice.
 */
const approvalModel = { model: 'approval-choice.pml', defines: ['-DAPPROVALS=3'] };
const approvalChecks: readonly Check[] = [{ name: 'approvals: the choice each approver made', ...approvalModel }];
const approvalMutants: ReadonlyArray<Check & { expect: string }> = [
  {
    name: 'mutant: every approval counts and the last one’s choice is released',
    ...approvalModel,
    defines: [...approvalModel.defines, '-DMUTANT_LAST_CHOICE'],
    expect: 'P9',
  },
  {
    name: 'mutant: one person moves a batch several approved to an earlier time',
    ...approvalModel,
    defines: [...approvalModel.defines, '-DMUTANT_RESCHEDULE_EARLY'],
    expect: 'P9',
  },
];

/** The code as it is, scope by scope: every property must hold. */
export const checks: readonly Check[] = [
  ...scopes.map((scope) => ({ name: scope.name, defines: defines(scope.bounds), ...(scope.cc === undefined ? {} : { cc: scope.cc }) })),
  ...approvalChecks,
];

/** Each mutant and the property whose assertion must catch it. */
export const mutants: ReadonlyArray<Check & { expect: string }> = [
  { name: 'mutant: no fencing check', defines: ['-DMUTANT_NO_FENCING', ...defines(scopes[0]!.bounds)], expect: 'P2' },
  {
    name: 'mutant: execute without reading back after a lost answer',
    defines: ['-DMUTANT_EXECUTE_WITHOUT_READBACK', ...defines(scopes[0]!.bounds)],
    expect: 'P3',
  },
  {
    name: 'mutant: retry under a new id without proof',
    defines: ['-DMUTANT_RETRY_WITHOUT_PROOF', '-DNO_P3_ASSERT', ...defines({ FAULTS: 2, RETRY_RUNS: 1, CRASHES: 0, STALLS: 0 })],
    expect: 'P1',
  },
  {
    name: "mutant: resume without the breaker's probe",
    defines: ['-DMUTANT_RESUME_WITHOUT_PROBE', ...defines(scopes[0]!.bounds)],
    expect: 'P4',
  },
  {
    name: 'mutant: READY taken for proof that nothing will be paid',
    defines: ['-DMUTANT_READY_IS_NOT_PAID', ...defines(scopes[0]!.bounds)],
    expect: 'P3',
  },
  {
    name: 'mutant: release before payAt',
    defines: ['-DMUTANT_RELEASE_EARLY', ...defines({ FAULTS: 0, CRASHES: 0, STALLS: 0, SCHEDULES: 1 })],
    expect: 'P6',
  },
  // Issue 37: a cancel binds every process, through a takeover and a worker stalled past its lease.
  {
    name: 'mutant: a row taken over in a cancelled batch executed after a READY read-back',
    defines: ['-DMUTANT_EXECUTE_AFTER_CANCEL', ...defines(scopes[2]!.bounds)],
    expect: 'P7',
  },
  {
    name: 'mutant: no send fence (a worker stalled past its lease sends when it wakes)',
    defines: ['-DMUTANT_NO_SEND_FENCE', ...defines(scopes[2]!.bounds)],
    expect: 'P7',
  },
  // Issue 37: no event of a final outcome is followed by another outcome for the row (decision 26).
  {
    name: 'mutant: a retry that does not tell it reopened the row',
    defines: ['-DMUTANT_RETRY_UNTOLD', ...defines(scopes[3]!.bounds)],
    expect: 'P8',
  },
  ...approvalMutants,
];

/** Property 3's liveness half (weak fairness multiplies the states: smaller bounds). */
export const livenessCheck: Check = {
  name: 'settles (LTL, weak fairness)',
  defines: ['-DLIVENESS', ...defines({ FAULTS: 1, CRASHES: 1, STALLS: 0, PAUSES: 1 })],
  ltl: 'settles',
};
