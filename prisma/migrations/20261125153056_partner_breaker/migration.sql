-- CreateEnum
CREATE TYPE "BreakerState" AS ENUM ('CLOSED', 'OPEN');

-- CreateEnum
CREATE TYPE "BreakerReason" AS ENUM ('UNREACHABLE', 'THROTTLED', 'FAILING');

-- CreateTable
CREATE TABLE "PartnerBreaker" (
    "agentId" TEXT NOT NULL,
    "state" "BreakerState" NOT NULL DEFAULT 'CLOSED',
    "reason" "BreakerReason",
    "lastCode" TEXT,
    "openedAt" TIMESTAMPTZ(3),
    "closedAt" TIMESTAMPTZ(3),
    "probes" INTEGER NOT NULL DEFAULT 0,
    "nextProbeAt" TIMESTAMPTZ(3),
    "probeOwner" TEXT,
    "probeUntil" TIMESTAMPTZ(3),
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PartnerBreaker_pkey" PRIMARY KEY ("agentId")
);
