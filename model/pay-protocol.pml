/*
 * The pay protocol of one approved batch, as src/batch/pay/ (batch-worker.ts, pay-row.ts, row-writes.ts) and its SQL pay its rows
 * (docs/internals/reliability/model.md, "A model of the pay protocol"). The row, payment-record, batch and
 * review tables come from the code: generated/tables.pml (scripts/model-tables.ts).
 *
 * Properties (assertions, named in the docs):
 *   P1 once-per-line        no CSV line has two payments IN_PROGRESS or COMPLETED upstream,
 *                           across its paymentIds and retries
 *   P2 fenced-writes        no write of a worker whose row was taken over takes effect
 *   P3 settles              (ltl settles) every row ends final and nothing stays NEEDS_REVIEW,
 *                           under weak fairness with faults bounded (the partner eventually answers);
 *                           its safety half (P3 failed-with-proof): a row ends FAILED or
 *                           EXPIRED only while its payment is not paid or being paid upstream
 *   P4 pause-cancel-breaker a paused batch sends no create or execute but those of rows held
 *                           when it paused; a cancelled batch starts no new paymentId and no
 *                           execute; nothing is sent after the breaker opened until a probe
 *                           was answered, but the calls of the one row claimed as the probe
 *   P5 repair-sends-nothing reconciliation's repair creates and executes nothing
 *   P6 not-before-its-time  nothing is sent for a scheduled batch before its payAt (scheduling block below)
 *   P7 cancel-binds         once a cancel is answered, no create or execute leaves any worker for the
 *                           batch, through lease takeovers and workers stalled past their lease
 *                           (decision 0027); a send leaves and lands in two steps, so a request sent
 *                           before may still land after
 *   P8 told-once            no row event of a final outcome is followed by another outcome event for
 *                           the row, unless a person's retry reopened it (batch_row.retried): the
 *                           events a row's moves tell (FINAL_TOLD_ITEM, from row-events.ts), decision 0026
 *
 * Mutants (-D…): MUTANT_NO_FENCING, MUTANT_EXECUTE_WITHOUT_READBACK,
 * MUTANT_RETRY_WITHOUT_PROOF, MUTANT_RESUME_WITHOUT_PROBE, MUTANT_READY_IS_NOT_PAID (the
 * code before the model found that an execute may land after its worker lost the row),
 * MUTANT_RELEASE_EARLY (a release that does not wait for payAt), MUTANT_EXECUTE_AFTER_CANCEL (a
 * row taken over in a cancelled batch executed after a READY read-back, as the code did before
 * issue 37), MUTANT_NO_SEND_FENCE (a worker stalled past its lease sends when it wakes),
 * MUTANT_RETRY_UNTOLD (a person's retry pays a failed row again without telling that it
 * reopened it, as the code did before issue 37: batch_row.failed, then batch_row.paid).
 */
#include "generated/tables.pml"

#ifndef ROWS
#define ROWS 2
#endif
#ifndef WORKERS
#define WORKERS 2
#endif
/* Answers lost or refused before sending, over the whole run: the partner eventually answers. */
#ifndef FAULTS
#define FAULTS 2
#endif
/* Workers that die at some step, never to come back. */
#ifndef CRASHES
#define CRASHES 1
#endif
/* Leases that lapse while their worker still runs (a stopped process, a long pause). */
#ifndef STALLS
#define STALLS 1
#endif
#ifndef PAUSES
#define PAUSES 1
#endif
#ifndef RETRY_RUNS
#define RETRY_RUNS 1
#endif
#ifndef CANCELS
#define CANCELS 1
#endif
#ifndef REFUSALS
#define REFUSALS 1
#endif
#ifndef REPAIRS
#define REPAIRS 1
#endif
/* --- scheduling (issue 30): approvals with a payAt ahead, and reschedules while it waits. */
#ifndef SCHEDULES
#define SCHEDULES 0
#endif
/* --- end scheduling */
/* paymentIds per line: the first and one retryFailedItems. */
#define ATTEMPTS 2
#define PAY(r, a) ((r) * ATTEMPTS + (a) - 1)
#define NONE 255

/* The partner's payment states (spec: READY on create, execute only from READY, expiry). */
#define UP_NONE 0
#define UP_READY 1
#define UP_IN_PROGRESS 2
#define UP_COMPLETED 3
#define UP_FAILED 4
#define UP_EXPIRED 5
#define UP_PAYING(u) ((u) == UP_IN_PROGRESS || (u) == UP_COMPLETED)

/* What one call came to, as the worker sees it. */
#define ANS_NOT_SENT 0  /* connection refused, or the breaker refused it: nothing was sent */
#define ANS_LOST 1      /* no answer (the partner may or may not have acted) */
#define ANS_PAYMENT 2   /* the payment, its state in ansSt */
#define ANS_EXISTS 3    /* payout.resource.exists */
#define ANS_REFUSED 4   /* a 4xx: the partner decided, nothing was done */
#define ANS_NOT_FOUND 5 /* payout.payment.not-found */

/* Causes a create's read-back weighs a not-found against (attempt.ts readExisting). */
#define CAUSE_LOST 0
#define CAUSE_EXISTS 1
#define CAUSE_SPENT 2

byte up[ROWS * ATTEMPTS];             /* the partner's payments */
byte rec[ROWS * ATTEMPTS] = TS_NONE;  /* the gateway's payment records */
byte st[ROWS];                        /* BatchItem.status (all PENDING: IS_PENDING is 0) */
byte rt[ROWS];                        /* BatchItem.retries */
byte att[ROWS] = 1;                   /* BatchItem.attempt: the paymentId is PAY(r, att[r]) */
byte tok[ROWS];                       /* leaseToken: the claiming worker, 0 for none */
bit live[ROWS];                       /* leaseExpiresAt still ahead on the database clock */
bit prevAttempt[ROWS];                /* NEEDS_REVIEW batch.previous-attempt: the review reads the earlier paymentId */
byte batch = BS_VALIDATED;
byte breaker = BREAKER_START;         /* PartnerBreaker.state, moved only by breaker_on (generated from partner/breaker-states.ts) */
bit probeAnswered = 1;                /* since the breaker last opened, a probe was answered */
/* The worker whose row probes the open breaker (claim-items.ts probe, under the breaker's probe turn), 0 for none. */
byte prober;

byte faults = FAULTS;
byte crashes = CRASHES;
byte stalls = STALLS;
byte refusals = REFUSALS;

/* Ghosts: what the properties need to know, never read by the protocol. */
byte held[WORKERS + 1] = NONE;        /* the row worker w is paying, NONE between rows */
bit takenOver[WORKERS + 1];           /* w's row was claimed by another since w claimed it */
bit heldAtPause[WORKERS + 1];         /* w held its row when the batch was paused */
bit repairing;                        /* inside a repair step */
bit cancelPending;                    /* the cancel committed, not yet answered (sends-in-flight.ts) */
bit cancelAnswered;                   /* ghost: the person has the cancel's answer */
bit told[ROWS];                       /* ghost: an event of the row's final outcome was told (since its last retry) */
/* --- scheduling (issue 30) */
bit scheduled;                        /* ghost: approved with a payAt ahead */
bit due;                              /* the database clock has reached payAt (now() >= "payAt") */
/* --- end scheduling */

#ifdef MUTANT_NO_FENCING
#define FENCED(r, w) true
#else
#define FENCED(r, w) (tok[r] == (w))
#endif

/* send-fence.ts: a create or execute leaves only while the worker's lease holds (by its own clock, never later than the database's). */
#ifdef MUTANT_NO_SEND_FENCE
#define MAY_SEND(w, r) true
#else
#define MAY_SEND(w, r) (tok[r] == (w) && live[r])
#endif

#define CLAIMABLE(r) ((tok[r] == 0 || !live[r]) && \
  ((WORKED_BATCH(batch) && ACTIVE_ITEM(st[r])) || (READ_ONLY_BATCH(batch) && READ_WHILE_PAUSED_ITEM(st[r]))))

#define PROBE_CLAIMABLE(r) (CLAIMABLE(r) && WORKED_BATCH(batch) && st[r] != IS_IN_PROGRESS)

#define FROM_STATUS(u) ((u) == UP_READY -> OC_READY : ((u) == UP_COMPLETED -> OC_PAID : \
  ((u) == UP_IN_PROGRESS -> OC_IN_PROGRESS : ((u) == UP_FAILED -> OC_FAILED : OC_EXPIRED))))
#define TRACKED(u) ((u) == UP_READY -> TS_READY : ((u) == UP_COMPLETED -> TS_COMPLETED : \
  ((u) == UP_IN_PROGRESS -> TS_IN_PROGRESS : ((u) == UP_FAILED -> TS_FAILED : TS_EXPIRED))))

/* A worker may die before any of its steps: its row keeps its lease until the lease lapses. */
#define CRASH_OR if :: crashes > 0 -> crashes--; printf("MSG w%d dies\n", me); goto crashed :: true fi;

/* A call that said nothing: the breaker may open (its threshold of troubled calls abstracted). */
inline trouble() {
  if
  :: !BREAKER_OPEN -> breaker_on(ON_TROUBLE); probeAnswered = 0; printf("MSG the breaker opens\n")
  :: true
  fi
}

/* P4: a create or execute reaching the partner. */
inline reaching(w) {
  assert((!BREAKER_OPEN && probeAnswered) || prober == w);  /* P4 breaker */
  assert(batch != BS_PAUSED || heldAtPause[w]);      /* P4 pause */
  assert(!repairing);                                /* P5 repair-sends-nothing */
  assert(!scheduled || due);                         /* P6 not-before-its-time */
  assert(!cancelAnswered)                            /* P7 cancel-binds */
}

/* P8: a row that comes to rest in a state whose event is a final outcome tells it, once. */
inline tell(r) {
  if
  :: FINAL_TOLD_ITEM(st[r]) -> assert(!told[r]); told[r] = 1   /* P8 told-once */
  :: else
  fi
}

/* P1: executions that took effect, over every paymentId of line r. */
inline executed_once(r) {
  assert(!(UP_PAYING(up[PAY(r, 1)]) && UP_PAYING(up[PAY(r, 2)])))   /* P1 once-per-line */
}

inline create_effect(p) {
  if
  :: up[p] == UP_NONE -> up[p] = UP_READY; ans = ANS_PAYMENT; ansSt = UP_READY
  :: else -> ans = ANS_EXISTS
  fi
}

inline execute_effect(p, r) {
  if
  :: up[p] == UP_READY ->
     if
     :: up[p] = UP_COMPLETED
     :: up[p] = UP_IN_PROGRESS
     :: up[p] = UP_FAILED
     fi;
     executed_once(r);
     ans = ANS_PAYMENT; ansSt = up[p]
  :: up[p] == UP_NONE -> ans = ANS_NOT_FOUND
  :: else -> ans = ANS_PAYMENT; ansSt = up[p]   /* a repeated execute: the payment as it stands */
  fi
}

/*
 * The probe row's send decides (partner-breaker.ts rowProbeAnswered): trouble keeps the
 * breaker open, an answer closes it; either way the turn is given back.
 */
inline probe_decides(w) {
  if
  :: BREAKER_OPEN && prober == w ->
     prober = 0;
     if
     :: ans != ANS_NOT_SENT && ans != ANS_LOST -> breaker_on(ON_PROBE_ANSWERED); probeAnswered = 1; printf("MSG w%d's probe row is answered: the breaker closes\n", w)
     :: else -> breaker_on(ON_PROBE_TROUBLE); printf("MSG w%d's probe row meets trouble: the breaker stays open\n", w)
     fi
  :: else
  fi
}

/*
 * A create or execute leaving the worker (payout/client.ts call): the row's fence, the open
 * breaker, a refused connection; what leaves is asserted on (reaching) and lands in the
 * worker's next step, so other processes move in between (a request in flight).
 */
inline send_leaves(w, r) {
  if
  :: !MAY_SEND(w, r) -> ans = ANS_NOT_SENT; printf("MSG w%d's send for row %d is withheld: its lease has ended\n", w, r)
  :: MAY_SEND(w, r) && BREAKER_OPEN && prober != w -> ans = ANS_NOT_SENT
  :: MAY_SEND(w, r) && !(BREAKER_OPEN && prober != w) ->
     if
     :: faults > 0 -> faults--; ans = ANS_NOT_SENT; trouble(); probe_decides(w)
     :: reaching(w); flying = 1
     fi
  fi
}

/* A PUT create that left, landing, with the faults a call may meet. */
inline create_lands(w, p) {
  if
  :: faults > 0 -> faults--; ans = ANS_LOST; trouble()                       /* lost before it acted */
  :: faults > 0 -> faults--; create_effect(p); ans = ANS_LOST; trouble()     /* acted, answer lost */
  :: create_effect(p)
  :: refusals > 0 && up[p] == UP_NONE -> refusals--; ans = ANS_REFUSED      /* refused with proof */
  fi;
  flying = 0;
  probe_decides(w)
}

inline execute_lands(w, p, r) {
  if
  :: faults > 0 -> faults--; ans = ANS_LOST; trouble()
  :: faults > 0 -> faults--; execute_effect(p, r); ans = ANS_LOST; trouble()
  :: execute_effect(p, r)
  fi;
  flying = 0;
  probe_decides(w)
}

/* Called by a Worker (`me`): the probe row's reads pass the open breaker, and decide nothing. */
inline partner_read(p) {
  if
  :: BREAKER_OPEN && prober != me -> ans = ANS_NOT_SENT
  :: else ->
     if
     :: faults > 0 -> faults--; ans = ANS_NOT_SENT; trouble()
     :: faults > 0 -> faults--; ans = ANS_LOST; trouble()
     :: up[p] == UP_NONE -> ans = ANS_NOT_FOUND
     :: up[p] != UP_NONE -> ans = ANS_PAYMENT; ansSt = up[p]
     fi
  fi
}

/* What a read's answer proves (attempt.ts fromStatus, read). `caused`: an execute's answer was lost. */
inline read_outcome(caused) {
  if
  :: ans == ANS_PAYMENT -> oc = FROM_STATUS(ansSt)
  :: ans == ANS_NOT_FOUND -> oc = OC_ABSENT_READ
  :: ans == ANS_NOT_SENT && !caused -> oc = OC_UNREACHABLE
  :: ans == ANS_NOT_SENT && caused -> oc = OC_UNKNOWN_UNREAD
  :: ans == ANS_LOST -> oc = OC_UNKNOWN
  fi
}

/* attempt.ts readExisting: what exists upstream after a create that proved nothing. */
inline existing_outcome(cause) {
  if
  :: ans == ANS_PAYMENT -> oc = FROM_STATUS(ansSt)
  :: ans == ANS_NOT_FOUND && cause == CAUSE_EXISTS -> oc = OC_UNKNOWN
  :: ans == ANS_NOT_FOUND && cause == CAUSE_LOST -> oc = OC_ABSENT
  :: ans == ANS_NOT_FOUND && cause == CAUSE_SPENT -> oc = OC_ABSENT_SPENT
  :: ans == ANS_NOT_SENT -> oc = OC_UNKNOWN_UNREAD
  :: ans == ANS_LOST -> oc = OC_UNKNOWN
  fi
}

/*
 * move-items.ts: a row's change, fenced by the lease token and the state this worker last
 * wrote; its payment fact is recorded whatever became of the row (payments/status.ts rules).
 */
inline move(w, r, p, to, nrt, fact, onlyIfRunning) {
  atomic {
    if
    :: fact == FACT_PAYMENT -> ts = TRACKED(ansSt)
    :: fact == FACT_UNKNOWN -> ts = TS_UNKNOWN
    :: fact == FACT_REJECTED -> ts = TS_REJECTED
    :: fact == FACT_NONE -> ts = NONE
    fi;
    if
    :: ts != NONE && rec[p] != TS_NONE && TRACKED_MAY(rec[p], ts) -> rec[p] = ts
    :: else
    fi;
    if
    :: FENCED(r, w) && st[r] == s ->
       assert(!takenOver[w]);                                        /* P2 fenced-writes */
       /* the row table's cancel and pause rules (ROW_OVERRIDE, generated from row-states.ts) */
       cancelled = ROW_OVERRIDE(to, onlyIfRunning, batch, IS_CANCELLED);
       pausedHere = ROW_OVERRIDE(to, onlyIfRunning, batch, IS_READY);
       if
       :: cancelled -> st[r] = IS_CANCELLED
       :: !cancelled && pausedHere -> st[r] = IS_READY
       :: else -> st[r] = to
       fi;
       tell(r);
       rt[r] = nrt;
       if
       :: !onlyIfRunning || cancelled || pausedHere -> tok[r] = 0; live[r] = 0
       :: else
       fi;
       assert(st[r] != IS_EXECUTING || !onlyIfRunning || batch == BS_RUNNING);  /* P4 execute-only-while-running */
#ifndef NO_P3_ASSERT
       assert(!((st[r] == IS_FAILED || st[r] == IS_EXPIRED) && UP_PAYING(up[p])));  /* P3 failed-with-proof */
#endif
       s = st[r];
       printf("MSG w%d writes row %d: IS:%d (retries %d)\n", w, r, st[r], rt[r])
    :: else -> s = NONE; printf("MSG w%d's write of row %d (IS:%d) changes nothing: the row is IS:%d, token w%d\n", w, r, to, st[r], tok[r])
    fi;
    ts = 0; cancelled = 0; pausedHere = 0
  }
}

/* The worker's steps (pay/pay-row.ts pay): each is one call or one write, and a worker may die before any. */
#define W_IDLE 0
#define W_PREV 1         /* previousAttemptNotPaid: read the earlier paymentId */
#define W_PREV_WRITE 2   /* ... and write what it found, when it stops the row */
#define W_BEGIN 3        /* begin-create.ts: CREATING, durable before the create */
#define W_CREATE 4
#define W_EXISTING 5     /* a create that proved nothing, read back (cause in `cause`) */
#define W_CREATED 6      /* a create's outcome: startExecuting when READY, else the row's change */
#define W_START 7        /* startExecuting from READY */
#define W_EXECUTE 8
#define W_EXEC_READ 9    /* an execute whose answer was lost, read back */
#define W_RESUME 10      /* EXECUTING: read first (resumeExecute), or only read once the sends are spent */
#define W_READ 11        /* IN_PROGRESS: read back */
#define W_FINAL 12       /* changeAfter, written */
#define W_CREATE_LANDS 13  /* the create that left lands */
#define W_EXECUTE_LANDS 14 /* the execute that left lands */

/* A row claimed in a batch that no longer pays is only read back (pay-row.ts `sends`). */
#ifdef MUTANT_EXECUTE_AFTER_CANCEL
#define READS_ONLY false
#else
#define READS_ONLY (!sends)
#endif

proctype Worker(byte me) {
  byte pc, r, p, a, s, before, myrt, oc, to, nrt, fact, stage, ts, ans, ansSt, cause;
  bit cancelled, pausedHere, flying;
  bit sends;   /* the batch paid when the row was claimed (claim-items.ts batchStatus): else only read */
end_idle:
  do
  :: atomic {
       if
       :: pc == W_IDLE && !BREAKER_OPEN && CLAIMABLE(0) -> r = 0
#if ROWS > 1
       :: pc == W_IDLE && !BREAKER_OPEN && CLAIMABLE(1) -> r = 1
#endif
       /* The probe claim: one row that sends, of a running batch, by the one worker holding the turn. */
       :: pc == W_IDLE && BREAKER_OPEN && prober == 0 && PROBE_CLAIMABLE(0) -> r = 0; prober = me
#if ROWS > 1
       :: pc == W_IDLE && BREAKER_OPEN && prober == 0 && PROBE_CLAIMABLE(1) -> r = 1; prober = me
#endif
       fi;
       if
       :: tok[r] != 0 && held[tok[r]] == r -> takenOver[tok[r]] = 1   /* its holder still runs: taken over */
       :: else
       fi;
       tok[r] = me; live[r] = 1;
       held[me] = r; takenOver[me] = 0; heldAtPause[me] = 0;
       s = st[r]; before = s; myrt = rt[r]; a = att[r]; p = PAY(r, a); sends = PAYING_BATCH(batch);
       printf("MSG w%d claims row %d (IS:%d, retries %d, paymentId P:%d)\n", me, r, s, myrt, p);
       if
#ifndef MUTANT_RETRY_WITHOUT_PROOF
       :: s == IS_PENDING && a > 1 -> pc = W_PREV
#endif
       :: s == IS_CREATING && (myrt >= MAX_RETRIES || !sends) -> pc = W_EXISTING; cause = CAUSE_SPENT   /* readBackCreate */
       :: else ->
          if
          :: s == IS_PENDING || s == IS_CREATING -> pc = W_BEGIN
          :: s == IS_READY -> pc = W_START
          :: s == IS_EXECUTING -> pc = W_RESUME
          :: s == IS_IN_PROGRESS -> pc = W_READ
          fi
       fi
     }
  :: atomic {
       pc == W_PREV -> CRASH_OR
       partner_read(PAY(r, a - 1)); read_outcome(0); ans = 0;
       printf("MSG w%d reads the previous paymentId P:%d: OC:%d\n", me, PAY(r, a - 1), oc);
       if
       :: oc == OC_FAILED || oc == OC_EXPIRED || oc == OC_ABSENT_READ -> pc = W_BEGIN; oc = 0; ansSt = 0
#ifdef MUTANT_READY_IS_NOT_PAID
       :: oc == OC_READY -> pc = W_BEGIN; oc = 0; ansSt = 0        /* READY taken for proof: a new paymentId */
#endif
       :: else -> pc = W_PREV_WRITE
       fi
     }
  :: atomic {
       pc == W_PREV_WRITE -> CRASH_OR
       if
       :: oc == OC_PAID || oc == OC_IN_PROGRESS ->
          move(me, r, p, HOLD_FOR_REVIEW, myrt, FACT_NONE, 0);
          if :: s == HOLD_FOR_REVIEW -> prevAttempt[r] = 1 :: else fi
       :: else ->   /* not read: PENDING again later, no retry spent */
          item_next(STAGE_CREATE, OC_UNREACHABLE, myrt, IS_PENDING, to, nrt, fact);
          move(me, r, p, to, nrt, FACT_NONE, 0)
       fi;
       goto finished
     }
  :: atomic {
       pc == W_BEGIN -> CRASH_OR
       if
       :: FENCED(r, me) && (st[r] == IS_PENDING || st[r] == IS_CREATING) && !PAYING_BATCH(batch) ->
          tok[r] = 0; live[r] = 0; printf("MSG w%d lets row %d go: its batch no longer pays\n", me, r); goto finished
       :: FENCED(r, me) && (st[r] == IS_PENDING || st[r] == IS_CREATING) && PAYING_BATCH(batch) ->
          assert(!takenOver[me]);                                   /* P2 fenced-writes */
          assert(st[r] != IS_PENDING || batch != BS_CANCELLED);     /* P4 cancel-starts-nothing */
          st[r] = IS_CREATING; s = IS_CREATING; printf("MSG w%d writes row %d: IS:%d (begin-create)\n", me, r, st[r]);
          if :: rec[p] == TS_NONE -> rec[p] = TS_PENDING :: else fi;
          pc = W_CREATE
       :: else -> printf("MSG w%d's begin-create of row %d changes nothing\n", me, r); goto finished
       fi
     }
  :: atomic {
       pc == W_CREATE -> CRASH_OR
       send_leaves(me, r);
       if
       :: flying -> pc = W_CREATE_LANDS
       :: else -> printf("MSG w%d's create of P:%d is not sent\n", me, p); oc = OC_UNREACHABLE; pc = W_CREATED; ans = 0
       fi
     }
  :: atomic {
       pc == W_CREATE_LANDS ->
       create_lands(me, p);
       printf("MSG w%d creates P:%d: ANS:%d (upstream UP:%d)\n", me, p, ans, up[p]);
       if
       :: ans == ANS_PAYMENT -> oc = FROM_STATUS(ansSt); pc = W_CREATED
       :: ans == ANS_REFUSED -> oc = OC_REFUSED; pc = W_CREATED
       :: ans == ANS_EXISTS -> cause = CAUSE_EXISTS; pc = W_EXISTING
       :: ans == ANS_LOST -> cause = CAUSE_LOST; pc = W_EXISTING
       fi;
       ans = 0
     }
  :: atomic {
       pc == W_EXISTING -> CRASH_OR
       partner_read(p); existing_outcome(cause); ans = 0; cause = 0;
       printf("MSG w%d reads P:%d back: OC:%d\n", me, p, oc);
       pc = W_CREATED
     }
  :: atomic {
       pc == W_CREATED ->
       if
       /* read back absent in a batch that no longer pays: never created (pay-row.ts neverCreated) */
       :: !sends && oc == OC_ABSENT_SPENT -> CRASH_OR
          move(me, r, p, IS_PENDING, myrt, FACT_NONE, 0);
          goto finished
       :: oc == OC_READY -> CRASH_OR
          move(me, r, p, IS_EXECUTING, 0, FACT_PAYMENT, 1);          /* startExecuting */
          if :: s != IS_EXECUTING -> goto finished :: else fi;
          myrt = 0; oc = 0; ansSt = 0; pc = W_EXECUTE
       :: else -> stage = STAGE_CREATE; pc = W_FINAL
       fi
     }
  :: atomic {
       pc == W_START -> CRASH_OR
       move(me, r, p, IS_EXECUTING, myrt, FACT_NONE, 1);             /* startExecuting, the step's count goes on */
       if :: s != IS_EXECUTING -> goto finished :: else fi;
       pc = W_EXECUTE
     }
  :: atomic {
       pc == W_EXECUTE -> CRASH_OR
       send_leaves(me, r);
       if
       :: flying -> pc = W_EXECUTE_LANDS
       :: else -> printf("MSG w%d's execute of P:%d is not sent\n", me, p); stage = STAGE_EXECUTE; oc = OC_UNREACHABLE; pc = W_FINAL; ans = 0
       fi
     }
  :: atomic {
       pc == W_EXECUTE_LANDS ->
       execute_lands(me, p, r);
       printf("MSG w%d executes P:%d: ANS:%d (upstream UP:%d)\n", me, p, ans, up[p]);
       stage = STAGE_EXECUTE;
       if
       :: ans == ANS_PAYMENT -> oc = FROM_STATUS(ansSt); pc = W_FINAL
       :: ans == ANS_NOT_FOUND -> oc = OC_REFUSED_NOT_FOUND; pc = W_FINAL
#ifdef MUTANT_EXECUTE_WITHOUT_READBACK
       :: ans == ANS_LOST -> oc = OC_REFUSED; pc = W_FINAL          /* the lost answer taken for a refusal */
#else
       :: ans == ANS_LOST -> pc = W_EXEC_READ
#endif
       fi;
       ans = 0
     }
  :: atomic {
       pc == W_EXEC_READ -> CRASH_OR
       partner_read(p); read_outcome(1); ans = 0;
       printf("MSG w%d reads P:%d back: OC:%d\n", me, p, oc);
       if :: oc == OC_READY -> oc = OC_READY_AGAIN :: else fi;      /* every read said READY: not executed */
       pc = W_FINAL
     }
  :: atomic {
       pc == W_RESUME -> CRASH_OR
       partner_read(p); read_outcome(0); ans = 0;
       printf("MSG w%d reads P:%d: OC:%d\n", me, p, oc);
       stage = STAGE_EXECUTE;
       if
       /* a batch that no longer pays: READY is written, which its cancel ends as created, not executed (createdNotExecuted) */
       :: oc == OC_READY && READS_ONLY -> move(me, r, p, IS_READY, myrt, FACT_PAYMENT, 0); goto finished
       :: oc == OC_READY && !READS_ONLY && myrt < MAX_RETRIES -> oc = 0; ansSt = 0; pc = W_EXECUTE   /* resumeExecute */
#ifdef MUTANT_READY_IS_NOT_PAID
       :: oc == OC_READY && !READS_ONLY && myrt >= MAX_RETRIES -> oc = OC_REFUSED; pc = W_FINAL   /* READY taken for "never executed" */
#else
       /* sends spent: only read; READY is no proof (an execute sent earlier may land): read again later */
       :: oc == OC_READY && !READS_ONLY && myrt >= MAX_RETRIES -> pc = W_FINAL
#endif
       :: else -> pc = W_FINAL
       fi
     }
  :: atomic {
       pc == W_READ -> CRASH_OR
       partner_read(p); read_outcome(0); ans = 0;
       printf("MSG w%d reads P:%d: OC:%d\n", me, p, oc);
       stage = STAGE_READ; pc = W_FINAL
     }
  :: atomic {
       pc == W_FINAL -> CRASH_OR
       item_next(stage, oc, myrt, before, to, nrt, fact);
#ifdef MUTANT_RETRY_WITHOUT_PROOF
       if :: stage == STAGE_EXECUTE && oc == OC_UNKNOWN -> to = IS_FAILED :: else fi;   /* an unknown outcome taken for failed */
#endif
       move(me, r, p, to, nrt, fact, 0);
finished:
       held[me] = NONE; takenOver[me] = 0;
       if :: prober == me -> prober = 0 :: else fi;   /* rowProbeEnded: a row that sent nothing gives the turn back */
       pc = 0; oc = 0; to = 0; nrt = 0; fact = 0; stage = 0; ts = 0; ans = 0; ansSt = 0; cause = 0;
       cancelled = 0; pausedHere = 0; flying = 0; sends = 0; s = 0; before = 0; myrt = 0; a = 0; p = 0; r = 0
     }
  od;
crashed:
  atomic { held[me] = NONE; takenOver[me] = 0; if :: prober == me -> prober = 0 :: else fi }   /* the turn lapses (PROBE_HOLD_MS) */
}

/* Leases on the database clock: a dead worker's lapse; a live one's only when it stalls. */
#define ORPHANED(r) (tok[r] != 0 && live[r] && held[tok[r]] != r)
#define STALLED(r) (tok[r] != 0 && live[r] && held[tok[r]] == r)
active proctype Leases() {
end:
  do
  :: atomic { ORPHANED(0) -> live[0] = 0; printf("MSG the lease of row 0 lapses (its worker is gone)\n") }
#if ROWS > 1
  :: atomic { ORPHANED(1) -> live[1] = 0; printf("MSG the lease of row 1 lapses (its worker is gone)\n") }
#endif
  :: atomic { stalls > 0 && STALLED(0) -> stalls--; live[0] = 0; printf("MSG the lease of row 0 lapses while w%d is stalled\n", tok[0]) }
#if ROWS > 1
  :: atomic { stalls > 0 && STALLED(1) -> stalls--; live[1] = 0; printf("MSG the lease of row 1 lapses while w%d is stalled\n", tok[1]) }
#endif
  od
}

/* The partner on its own: READY payments expire, IN_PROGRESS ones settle. */
#define EXPIRE(i) :: atomic { up[i] == UP_READY -> up[i] = UP_EXPIRED; printf("MSG partner: P:%d expires\n", i) }
#define SETTLE(i) :: atomic { up[i] == UP_IN_PROGRESS -> if :: up[i] = UP_COMPLETED :: up[i] = UP_FAILED fi; printf("MSG partner: P:%d settles UP:%d\n", i, up[i]) }
active proctype Partner() {
end:
  do
  EXPIRE(0) EXPIRE(1) SETTLE(0) SETTLE(1)
#if ROWS > 1
  EXPIRE(2) EXPIRE(3) SETTLE(2) SETTLE(3)
#endif
  od
}

/* partner-breaker.ts: while open, one probe; an answer closes it (the moves: breaker_on, from partner/breaker-states.ts). */
active proctype Breaker() {
end:
  do
  :: atomic { BREAKER_OPEN && faults == 0 -> breaker_on(ON_PROBE_ANSWERED); probeAnswered = 1; printf("MSG a probe is answered: the breaker closes\n") }   /* the probe is answered */
  :: atomic { BREAKER_OPEN && faults > 0 -> faults--; breaker_on(ON_PROBE_TROUBLE); printf("MSG a probe meets trouble: the breaker stays open\n") }    /* the probe meets trouble */
#ifdef MUTANT_RESUME_WITHOUT_PROBE
  :: atomic { BREAKER_OPEN -> breaker = BK_CLOSED; printf("MSG the breaker closes on a timer, no probe\n") }                                  /* closed on a timer, no probe: a move the table lacks */
#endif
  od
}

#define ALL_REST (!ACTIVE_ITEM(st[0]) && (ROWS < 2 || !ACTIVE_ITEM(st[ROWS - 1])))
#define ANY_FAILED (FAILED_ITEM(st[0]) || (ROWS > 1 && FAILED_ITEM(st[ROWS - 1])))
#define ANY_ACTIVE (ACTIVE_ITEM(st[0]) || (ROWS > 1 && ACTIVE_ITEM(st[ROWS - 1])))

#define SETTLEABLE(r) (SETTLED_FROM_ITEM(st[r]) && (tok[r] == 0 || !live[r]) && \
  (rec[PAY(r, att[r])] == TS_COMPLETED || rec[PAY(r, att[r])] == TS_FAILED || rec[PAY(r, att[r])] == TS_EXPIRED))
/* finish-batches.ts and settle-from-payments.ts: the worker's sweep. */
active proctype Sweep() {
  byte r, to;
end:
  do
  :: atomic {
       ALL_REST && (batch == BS_RUNNING || batch == BS_PAUSED) ->
       to = (ANY_FAILED -> BS_COMPLETED_WITH_FAILURES : BS_COMPLETED);
       BATCH_MAY(BY_FINISH, batch, to) -> batch = to; to = 0; printf("MSG sweep: the batch ends BS:%d\n", batch)
     }
  :: atomic {  /* an IN_PROGRESS, EXECUTING or CREATING row whose payment record is final, its lease gone (a webhook or the sweep) */
       if
       :: SETTLEABLE(0) -> r = 0
#if ROWS > 1
       :: SETTLEABLE(1) -> r = 1
#endif
       fi;
       if
       :: rec[PAY(r, att[r])] == TS_COMPLETED -> st[r] = IS_COMPLETED
       :: rec[PAY(r, att[r])] == TS_FAILED -> st[r] = IS_FAILED
       :: rec[PAY(r, att[r])] == TS_EXPIRED -> st[r] = IS_EXPIRED
       fi;
       tell(r);
       if :: held[tok[r]] == r -> takenOver[tok[r]] = 1 :: else fi;
       tok[r] = 0; live[r] = 0; printf("MSG sweep: row %d takes its payment record: IS:%d\n", r, st[r]); r = 0
     }
  od
}

#define SENDER(r) (tok[r] != 0 && live[r] && SENDING_ITEM(st[r]))
/* People: approve, pause and resume, cancel, retryFailedItems. */
active proctype People() {
  byte r, w, pauses = PAUSES, retries = RETRY_RUNS;
  bit cancels = CANCELS;
#if SCHEDULES > 0
  /* --- scheduling (issue 30): batch-schedule.ts approvedStart, a payAt ahead */
  atomic { BATCH_MAY(BY_APPROVE, batch, BS_SCHEDULED) -> batch = BS_SCHEDULED; scheduled = 1; printf("MSG the batch is approved to pay at payAt\n") }
#else
  atomic { BATCH_MAY(BY_APPROVE, batch, BS_RUNNING) -> batch = BS_RUNNING; printf("MSG the batch is approved\n") }
#endif
end:
  do
  :: atomic { pauses > 0 && BATCH_MAY(BY_PAUSE, batch, BS_PAUSED) -> pauses--; batch = BS_PAUSED; printf("MSG a person pauses the batch\n");
       for (w : 1 .. WORKERS) { heldAtPause[w] = (held[w] != NONE) }; w = 0 }
  :: atomic { BATCH_MAY(BY_RESUME, batch, BS_RUNNING) -> batch = BS_RUNNING; printf("MSG a person resumes the batch\n") }
  :: atomic { cancels > 0 && BATCH_MAY(BY_CANCEL, batch, BS_CANCELLED) -> cancels = 0; batch = BS_CANCELLED; cancelPending = 1; printf("MSG a person cancels the batch\n");
       /* PENDING rows end at once; READY ones too (created, never executed), whoever holds them */
       for (r : 0 .. ROWS - 1) {
         if :: CANCEL_ENDS(st[r], IS_CANCELLED) -> st[r] = IS_CANCELLED; tell(r) :: else fi
       };
       r = 0 }
  /* sends-in-flight.ts: the cancel is answered once no row is held, under a lease not ended, in a state that sends */
  :: atomic { cancelPending && !SENDER(0) && (ROWS < 2 || !SENDER(ROWS - 1)) -> cancelPending = 0; cancelAnswered = 1; printf("MSG the cancel is answered\n") }
  :: atomic { retries > 0 && BATCH_MAY(BY_RETRY_FAILED, batch, BS_RUNNING) ->
       retries--; batch = BS_RUNNING; printf("MSG a person runs retryFailedItems\n");
       for (r : 0 .. ROWS - 1) {
         if
#ifdef MUTANT_RETRY_WITHOUT_PROOF
         :: (RETRYABLE_ITEM(st[r]) || st[r] == IS_NEEDS_REVIEW) && att[r] < ATTEMPTS ->
#else
         :: RETRYABLE_ITEM(st[r]) && att[r] < ATTEMPTS ->
#endif
#ifndef MUTANT_RETRY_UNTOLD
            told[r] = 0;   /* batch_row.retried reopens the row */
#endif
            att[r]++; st[r] = IS_PENDING; rt[r] = 0; tok[r] = 0; live[r] = 0; printf("MSG row %d: PENDING again under P:%d\n", r, PAY(r, att[r]))
         :: else
         fi
       };
       r = 0 }
  od
}

/* review-service.ts: NEEDS_REVIEW rows read again (the earlier paymentId for batch.previous-attempt). */
active proctype Review() {
  byte r, p, oc, to, ans, ansSt;
  byte me = NONE;   /* no worker: partner_read never lets it pass an open breaker */
  bit settles;
end:
  do
  :: atomic {
       if
       :: st[0] == IS_NEEDS_REVIEW -> r = 0
#if ROWS > 1
       :: st[1] == IS_NEEDS_REVIEW -> r = 1
#endif
       fi;
       p = (prevAttempt[r] -> PAY(r, att[r] - 1) : PAY(r, att[r]));
       partner_read(p);
       if
       :: ans == ANS_PAYMENT -> oc = FROM_STATUS(ansSt)
       :: ans == ANS_NOT_FOUND -> oc = OC_ABSENT_READ
       :: ans == ANS_NOT_SENT -> oc = OC_UNREACHABLE
       :: ans == ANS_LOST -> oc = OC_UNKNOWN
       fi;
       review_next(oc, to, settles);
       printf("MSG review reads P:%d: OC:%d, settles %d (IS:%d)\n", p, oc, settles, to);
       if
       :: settles && prevAttempt[r] -> att[r]--; prevAttempt[r] = 0; st[r] = to   /* the row takes the payment that decided it */
       :: settles && !prevAttempt[r] -> st[r] = to
       :: else
       fi;
       if :: settles -> tell(r) :: else fi;
       if
       :: settles && batch == BS_COMPLETED_WITH_FAILURES ->
          if
          :: ANY_ACTIVE && BATCH_MAY(BY_REVIEW, batch, BS_RUNNING) -> batch = BS_RUNNING
          :: !ANY_ACTIVE && !ANY_FAILED && BATCH_MAY(BY_REVIEW, batch, BS_COMPLETED) -> batch = BS_COMPLETED
          :: else
          fi
       :: else
       fi;
       r = 0; p = 0; oc = 0; to = 0; ans = 0; ansSt = 0; settles = 0 }
  od
}

/* reconciliation/repair.ts: a payment final upstream and not in the gateway takes the upstream's status. */
#define REPAIRABLE(i) ((up[i] == UP_COMPLETED || up[i] == UP_FAILED || up[i] == UP_EXPIRED) && rec[i] != TS_NONE && TRACKED_MAY(rec[i], TRACKED(up[i])))
#define REPAIR(i) :: atomic { repairs > 0 && REPAIRABLE(i) -> repairing = 1; repairs--; rec[i] = TRACKED(up[i]); repairing = 0; printf("MSG repair: the record of P:%d takes TS:%d\n", i, rec[i]) }
active proctype Repair() {
  byte repairs = REPAIRS;
end:
  do
  REPAIR(0) REPAIR(1)
#if ROWS > 1
  REPAIR(2) REPAIR(3)
#endif
  od
}

/* --- scheduling (issue 30) ---
 * The database clock reaching payAt; the release (sql/release-due-batches.ts: one UPDATE …
 * WHERE status = SCHEDULED AND "payAt" <= now(), so one atomic step whichever worker's sweep
 * runs it); a reschedule to a later payAt (batch-schedule.ts, only while SCHEDULED).
 */
#ifdef MUTANT_RELEASE_EARLY
#define RELEASE_DUE true
#else
#define RELEASE_DUE due
#endif
active proctype Schedule() {
  byte reschedules = SCHEDULES;
end:
  do
  :: atomic { scheduled && !due -> due = 1; printf("MSG the database clock reaches payAt\n") }
  :: atomic { RELEASE_DUE && BATCH_MAY(BY_RELEASE, batch, BS_RUNNING) -> batch = BS_RUNNING; printf("MSG a sweep releases the batch\n") }
  :: atomic { reschedules > 0 && BATCH_MAY(BY_RESCHEDULE, batch, BS_SCHEDULED) -> reschedules--; due = 0; printf("MSG a person reschedules it to a later payAt\n") }
  od
}
/* --- end scheduling */

init {
  byte w;
  atomic { for (w : 1 .. WORKERS) { run Worker(w) }; w = 0 }
}

#define FINAL_ROW(r) (st[r] == IS_COMPLETED || st[r] == IS_FAILED || st[r] == IS_EXPIRED || st[r] == IS_CANCELLED)
#ifdef LIVENESS
ltl settles { <> [] (FINAL_ROW(0) && (ROWS < 2 || FINAL_ROW(ROWS - 1))) }
#endif
