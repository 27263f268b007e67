/*
 * The approvals of one batch under a two-approver policy (issue 38, decision 0029), as
 * src/approval/approvals.ts (approveBatch, pending, evaluateBatch), evaluate.ts (agrees) and
 * src/batch/lifecycle/approve-batch.ts and batch-schedule.ts (reschedule) decide them, with the
 * release of a scheduled batch (sql/release-due-batches.ts) and the first send.
 *
 * A choice is what an approval agrees to: the rows (one waiting row, and a row held for a
 * changed account, paid only when included: bit HELD) and when they are paid (now, or a payAt
 * ahead: bit LATER). Three people approve, in any order, any choice, up to APPROVALS times;
 * the policy needs two.
 *
 * Property (assertion):
 *   P9 as-approved  a batch is sent no earlier than every counted approval's payAt, with
 *                   exactly the rows they agreed to: each approval counted toward the release
 *                   is of the released choice, and a choice with a payAt ahead is sent only
 *                   once the clock reached it
 *
 * Mutants (-D…): MUTANT_LAST_CHOICE (every approval counts, whatever it agreed to, and the batch
 * is released with the last approval's choice: the code before issue 38, where April's time was
 * dropped), MUTANT_RESCHEDULE_EARLY (one person moves a batch several approved to an earlier time).
 */
#define PEOPLE 3
#define NEEDED 2
#ifndef APPROVALS
#define APPROVALS 4
#endif
#define HELD 1
#define LATER 2
#define NO_CHOICE 255
#define BIT(c) (1 << (c))

byte approved[PEOPLE];      /* per person, the choices they approved: one bit per choice (the Approval table) */
byte pending = NO_CHOICE;   /* the latest approval's choice: what a later approver completes or replaces */
bit released;               /* the policy was met: RUNNING, or SCHEDULED for payAt */
bit scheduledLater;         /* the batch's payAt is ahead (SCHEDULED) */
byte countedChoice;         /* the choice the release was made with */
byte counted;               /* ghost: the people whose approvals counted toward the release */
bit due;                    /* the database clock reached the agreed payAt */
bit sent;

active [PEOPLE] proctype Approver() {
  byte budget = APPROVALS;
  byte c, q, n, mask, others;
  bit newRound;
  do
  :: atomic {
       !released && budget > 0 ->
       budget--;
       if :: c = 0 :: c = HELD :: c = LATER :: c = HELD | LATER fi;
       if :: newRound = 0 :: newRound = 1 fi;
       /* approveBatch: other people's approvals of the pending choice, which this one differs from */
       others = 0; q = 0;
       do
       :: q < PEOPLE -> if :: q != _pid && pending != NO_CHOICE && (approved[q] & BIT(pending)) -> others++ :: else fi; q++
       :: else -> break
       od;
       if
       :: pending != NO_CHOICE && c != pending && others > 0 && !newRound ->
          printf("MSG person %d approves choice %d: refused, it differs from the pending choice %d\n", _pid, c, pending)
       :: else ->
          approved[_pid] = approved[_pid] | BIT(c);
          pending = c;
          printf("MSG person %d approves choice %d (held %d, later %d)\n", _pid, c, c & HELD, (c & LATER) / LATER);
          /* evaluateBatch: the approvals that agree with this choice */
          n = 0; mask = 0; q = 0;
          do
          :: q < PEOPLE ->
#ifdef MUTANT_LAST_CHOICE
             if :: approved[q] != 0 -> n++; mask = mask | BIT(q) :: else fi;
#else
             if :: (approved[q] & BIT(c)) -> n++; mask = mask | BIT(q) :: else fi;
#endif
             q++
          :: else -> break
          od;
          if
          :: n >= NEEDED ->
             released = 1; countedChoice = c; counted = mask; scheduledLater = ((c & LATER) != 0);
             printf("MSG the policy is met: released with choice %d\n", c)
          :: else
          fi
       fi;
       c = 0; q = 0; n = 0; mask = 0; others = 0; newRound = 0 /* scratch: not part of the state */
     }
  :: else -> break
  od
}

/* The database clock reaching the agreed payAt. */
active proctype Clock() {
end_clock:
  atomic { !due -> due = 1; printf("MSG the clock reaches payAt\n") }
}

/* batch-schedule.ts reschedule: earlier than several approvers agreed is refused (startedWith > 1). */
active proctype Reschedule() {
  byte q, n;
end_reschedule:
  atomic {
    released && scheduledLater && !sent ->
    n = 0; q = 0;
    do :: q < PEOPLE -> if :: (counted & BIT(q)) -> n++ :: else fi; q++ :: else -> break od;
#ifdef MUTANT_RESCHEDULE_EARLY
    n = 0;
#endif
    if
    :: n <= 1 -> scheduledLater = 0; printf("MSG one person reschedules it to an earlier time\n")
    :: else -> printf("MSG a reschedule to an earlier time is refused: %d people approved its time\n", n)
    fi;
    q = 0; n = 0
  }
}

/* The release of a due batch and its first send: the rows of the released choice. */
active proctype Worker() {
  byte q;
end_worker:
  atomic {
    released && (!scheduledLater || due) && !sent ->
    sent = 1;
    printf("MSG the rows of choice %d are sent\n", countedChoice);
    assert(!(countedChoice & LATER) || due); /* P9 as-approved: no earlier than the agreed payAt */
    q = 0;
    do
    :: q < PEOPLE -> assert(!(counted & BIT(q)) || (approved[q] & BIT(countedChoice))); /* P9 as-approved: each counted approval agreed to these rows and time */
       q++
    :: else -> break
    od
  }
}
