-- CreateTable
CREATE TABLE "PartnerBudget" (
    "agentId" TEXT NOT NULL,
    "nextAt" TIMESTAMPTZ(6) NOT NULL,
    "pausedUntil" TIMESTAMPTZ(3),

    CONSTRAINT "PartnerBudget_pkey" PRIMARY KEY ("agentId")
);
