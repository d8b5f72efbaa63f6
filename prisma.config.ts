// Prisma CLI configuration (Prisma 6.19, JS engine: no binary downloads, works offline).
// Used by `prisma generate` and `prisma migrate diff` when writing new migrations; the gateway
// applies migrations itself at start-up, so `prisma migrate deploy` is never needed.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  experimental: { adapter: true },
  engine: 'js',
  adapter: async () => {
    const { PrismaPg } = await import('@prisma/adapter-pg');
    return new PrismaPg({ connectionString: process.env.DATABASE_URL ?? 'postgresql://localhost:5432/postgres' });
  },
});
