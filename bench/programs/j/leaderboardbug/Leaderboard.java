package leaderboardbug;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The current leader: holder and score, read together; immutable. */
final class Leader {
    final String holder;
    final int score;

    Leader(String holder, int score) {
        this.holder = holder;
        this.score = score;
    }

    @Override public String toString() {
        return holder + " with " + score;
    }
}

/**
 * A game leaderboard: running totals per player and the top score with its holder. Totals are
 * accumulated with {@link ConcurrentHashMap#merge}; the leader is guarded by the board's lock.
 */
class Leaderboard {
    private final ConcurrentHashMap<String, Integer> totals = new ConcurrentHashMap<>();
    private String topHolder = "nobody";
    private int topScore;

    /** Adds points to a player's total and promotes the player if the new total leads. */
    void award(String player, int points) {
        int total = totals.merge(player, points, Integer::sum);
        int currentTop = topScore(); // BUG: top score read in one critical section ...
        if (total > currentTop) {
            crown(player, total); // BUG: ... acted on in another; a lower total can overwrite a higher one
        }
    }

    private synchronized int topScore() {
        return topScore;
    }

    /** Makes {@code player} the leader with {@code total}. */
    private synchronized void crown(String player, int total) {
        topScore = total;
        topHolder = player;
    }

    synchronized Leader leader() {
        return new Leader(topHolder, topScore);
    }

    /** The best total in the table, computed from scratch for auditing. */
    Map.Entry<String, Integer> bestTotal() {
        return totals.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow();
    }
}
