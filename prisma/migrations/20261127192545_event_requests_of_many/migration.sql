-- AlterTable
ALTER TABLE "EventSubscription" ADD COLUMN     "eventsPerRequest" INTEGER NOT NULL DEFAULT 1;
