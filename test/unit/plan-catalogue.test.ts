import { describe, expect, it } from '@jest/globals';
import type { Plan } from '../../src/db/entities.js';
import { PlanCatalogue } from '../../src/domain/plans/catalogue.js';

const plan = (name: string) => ({ name }) as Plan;

describe('plan catalogue cache', () => {
  it('reads the plans once per catalogue version, and again when the version changes', async () => {
    let reads = 0;
    const catalogue = new PlanCatalogue(() => Promise.resolve([plan(`read ${++reads}`)]));
    const [a, b] = await Promise.all([catalogue.listed('1'), catalogue.listed('1')]);
    expect(a).toBe(b);
    expect(reads).toBe(1);
    expect((await catalogue.listed('2'))[0]!.name).toBe('read 2');
    expect((await catalogue.listed('2'))[0]!.name).toBe('read 2');
    expect(reads).toBe(2);
  });

  it('does not keep a failed read', async () => {
    let fail = true;
    const catalogue = new PlanCatalogue(() => (fail ? Promise.reject(new Error('database down')) : Promise.resolve([plan('Free')])));
    await expect(catalogue.listed('1')).rejects.toThrow('database down');
    fail = false;
    await expect(catalogue.listed('1')).resolves.toEqual([plan('Free')]);
  });
});
