/**
 * Turns of the event loop that pass while work runs: a scrape could be served on each. Work done
 * in one go gives none; work sliced between yields to the loop gives one or more per yield.
 */
export async function turnsDuring(work: Promise<unknown>): Promise<number> {
  let done = false;
  void work.then(() => {
    done = true;
  });
  let turns = 0;
  while (!done) {
    await new Promise((resolve) => setImmediate(resolve));
    turns++;
  }
  return turns;
}
