-- AlterTable
ALTER TABLE "Payment" ADD COLUMN     "accountKey" CHAR(32),
ADD COLUMN     "payeeId" VARCHAR(36),
ADD COLUMN     "payeeLastPaidAt" TIMESTAMPTZ(3),
ADD COLUMN     "payeeMark" "PayeeMark";
