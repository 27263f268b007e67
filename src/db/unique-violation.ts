import { Prisma } from './generated/client.ts';

/** A unique constraint refused the write: Prisma's P2002, or PostgreSQL's 23505 where Prisma passes it on raw. */
export function isUniqueViolation(error: unknown): boolean {
  if (error instanceof Prisma.PrismaClientKnownRequestError) {
    if (error.code === 'P2002') return true;
  }
  for (let cause: unknown = error, depth = 0; cause !== undefined && cause !== null && depth < 5; depth++) {
    const { code, originalCode } = cause as { code?: unknown; originalCode?: unknown };
    if (code === '23505' || originalCode === '23505') return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}
