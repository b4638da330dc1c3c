package leaderboard;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** A tournament played in rounds: every player scores each round, then the round closes. */
public class Main {
    private static final int PLAYERS = 4;
    private static final int ROUNDS = 200;

    /** Points a player earns in a round: deterministic, but the lead changes hands often. */
    static int pointsFor(int player, int round) {
        return ((round * 31 + player * 17) % 23) + (round % PLAYERS == player ? 15 : 0);
    }

    /** One player's session: score, then wait at the barrier for the others. */
    private static Runnable session(Leaderboard board, CyclicBarrier endOfRound, int player) {
        String name = "player-" + player;
        return () -> {
            try {
                for (int round = 0; round < ROUNDS; round++) {
                    board.award(name, pointsFor(player, round));
                    board.award(name, 1);
                    endOfRound.await();
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        };
    }

    public static void main(String[] args) throws Exception {
        Leaderboard board = new Leaderboard();
        AtomicInteger leadChanges = new AtomicInteger();
        List<String> leaders = new ArrayList<>();
        CyclicBarrier endOfRound = new CyclicBarrier(PLAYERS, () -> {
            String holder = board.leader().holder;
            if (leaders.isEmpty() || !leaders.get(leaders.size() - 1).equals(holder)) {
                leadChanges.incrementAndGet();
            }
            leaders.add(holder);
        });
        ExecutorService pool = Executors.newFixedThreadPool(PLAYERS);
        List<Future<?>> sessions = new ArrayList<>();
        for (int p = 0; p < PLAYERS; p++) {
            sessions.add(pool.submit(session(board, endOfRound, p)));
        }
        for (Future<?> f : sessions) {
            f.get();
        }
        pool.shutdown();
        pool.awaitTermination(5, TimeUnit.SECONDS);

        Leader leader = board.leader();
        int best = board.bestTotal().getValue();
        boolean ok = leader.score == best;
        System.out.println("leader=" + leader + " best total=" + best + " lead changes=" + leadChanges.get()
                + (ok ? " OK" : " STALE LEADER"));
    }
}
