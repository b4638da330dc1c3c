package leaderboard;

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
 * accumulated with {@link ConcurrentHashMap#merge}; the comparison with the top score and the
 * update of score and holder happen in one {@code synchronized} method, so the leader is
 * always the player with the highest total offered so far.
 */
class Leaderboard {
    private final ConcurrentHashMap<String, Integer> totals = new ConcurrentHashMap<>();
    private String topHolder = "nobody";
    private int topScore;

    /** Adds points to a player's total and promotes the player if the new total leads. */
    void award(String player, int points) {
        int total = totals.merge(player, points, Integer::sum);
        offer(player, total);
    }

    /** Makes {@code player} the leader if {@code total} beats the current top score. */
    private synchronized void offer(String player, int total) {
        if (total > topScore) {
            topScore = total;
            topHolder = player;
        }
    }

    synchronized Leader leader() {
        return new Leader(topHolder, topScore);
    }

    /** The best total in the table, computed from scratch for auditing. */
    Map.Entry<String, Integer> bestTotal() {
        return totals.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow();
    }
}
