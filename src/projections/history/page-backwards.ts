// The one paging rule of the lists (fills, open orders, the trade tape): newest first, `before` continuing
// with older items. The HTTP routes and the in-memory history page with it, so both answer alike.
/**
 * A page of an oldest-first list, read newest first: up to `limit` items that are older than the cursor
 * position (`older(item)` holds for a prefix of the list) and pass `include`. `more` says whether an
 * older item would follow.
 */
export function pageBackwards<T>(list: readonly T[], limit: number, older: ((item: T) => boolean) | null, include: (item: T) => boolean = () => true): { items: T[]; more: boolean } {
  let end = list.length;
  if (older !== null) {
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (older(list[mid] as T)) lo = mid + 1;
      else hi = mid;
    }
    end = lo;
  }
  const items: T[] = [];
  for (let i = end - 1; i >= 0; i--) {
    const item = list[i] as T;
    if (!include(item)) continue;
    if (items.length === limit) return { items, more: true };
    items.push(item);
  }
  return { items, more: false };
}
