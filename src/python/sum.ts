// Python's builtin `sum()` over floats as CPython 3.12 computes it: Neumaier-compensated, so it differs from a
// plain left-to-right `+` (and from numpy's pairwise sum) in the last bits.

/**
 * CPython 3.12's builtin `sum` over floats, kept as a running total: the first value starts the total,
 * later ones are added with Neumaier's compensation, and `value()` folds the compensation in when it is
 * finite. The value after n additions is exactly `sum()` of those n values, so prefixes cost nothing extra.
 */
export class PythonSum {
  private total = 0;
  private compensation = 0;
  private empty = true;

  add(x: number): void {
    if (this.empty) {
      this.total = 0 + x;
      this.empty = false;
      return;
    }
    const next = this.total + x;
    if (Math.abs(this.total) >= Math.abs(x)) this.compensation += this.total - next + x;
    else this.compensation += x - next + this.total;
    this.total = next;
  }

  value(): number {
    return this.compensation !== 0 && Number.isFinite(this.compensation) ? this.total + this.compensation : this.total;
  }
}

/** CPython 3.12's builtin `sum` over floats (Neumaier-compensated); `[]` sums to 0. */
export function pythonSum(values: Iterable<number>): number {
  const sum = new PythonSum();
  for (const x of values) sum.add(x);
  return sum.value();
}
