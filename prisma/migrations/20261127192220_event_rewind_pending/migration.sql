-- AlterTable
ALTER TABLE "EventSubscription" ADD COLUMN     "rewindSeq" BIGINT,
ADD COLUMN     "rewindXid" BIGINT;
