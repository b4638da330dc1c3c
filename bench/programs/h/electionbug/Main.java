package electionbug;

import java.util.concurrent.atomic.AtomicBoolean;

/** An immutable view of who leads which epoch. */
final class LeaderView {
    final long epoch;
    final long leaderId;

    LeaderView(long epoch, long leaderId) {
        this.epoch = epoch;
        this.leaderId = leaderId;
    }
}

/**
 * The election state of one quorum peer. The epoch and the leader chosen for it form a
 * pair: a request stamped with epoch e must be forwarded to the leader of epoch e.
 * Every field is only touched with {@code stateLock} held.
 */
class QuorumPeerState {
    private final Object stateLock = new Object();
    private long currentEpoch;
    private long leaderId = Ensemble.leaderFor(0);
    private long transitions;

    /** Installs the outcome of an election. */
    void onLeaderElected(long epoch, long leader) {
        if (epoch <= getEpoch()) {
            return; // stale notification from an older round
        }
        // BUG: the epoch and the leader are published in two separate critical sections;
        // a reader between them sees the new epoch paired with the previous leader.
        setCurrentEpoch(epoch);
        setLeaderId(leader); // BUG: second half of a multi-variable update
        synchronized (stateLock) {
            transitions++;
        }
    }

    /** Reads the epoch and the leader. */
    LeaderView currentView() {
        long epoch = getEpoch();
        // BUG: the pair is read in two critical sections and may mix two elections
        long leader = getLeaderId();
        return new LeaderView(epoch, leader);
    }

    private long getEpoch() {
        synchronized (stateLock) {
            return currentEpoch;
        }
    }

    private void setCurrentEpoch(long epoch) {
        synchronized (stateLock) {
            currentEpoch = epoch;
        }
    }

    private long getLeaderId() {
        synchronized (stateLock) {
            return leaderId;
        }
    }

    private void setLeaderId(long leader) {
        synchronized (stateLock) {
            leaderId = leader;
        }
    }

    long transitions() {
        synchronized (stateLock) {
            return transitions;
        }
    }
}

/** The static ensemble: the leader of epoch e is server (e mod 3) + 1. */
final class Ensemble {
    static final int SIZE = 3;

    private Ensemble() {}

    static long leaderFor(long epoch) { return (epoch % SIZE) + 1; }
}

public class Main {
    static final int EPOCHS = 20000;

    public static void main(String[] args) throws InterruptedException {
        QuorumPeerState state = new QuorumPeerState();
        AtomicBoolean electing = new AtomicBoolean(true);
        long[] misrouted = new long[2];
        Thread elector = new Thread(() -> {
            for (long e = 1; e <= EPOCHS; e++) {
                state.onLeaderElected(e, Ensemble.leaderFor(e));
            }
            electing.set(false);
        }, "QuorumPeer-election");
        Thread[] routers = new Thread[2];
        for (int r = 0; r < routers.length; r++) {
            final int slot = r;
            routers[r] = new Thread(() -> {
                while (electing.get()) {
                    LeaderView v = state.currentView();
                    if (v.leaderId != Ensemble.leaderFor(v.epoch)) {
                        misrouted[slot]++;
                    }
                }
            }, "RequestRouter-" + r);
        }
        elector.start(); routers[0].start(); routers[1].start();
        elector.join(); routers[0].join(); routers[1].join();
        LeaderView last = state.currentView();
        long bad = misrouted[0] + misrouted[1];
        System.out.println("epoch=" + last.epoch + " leader=" + last.leaderId + " transitions=" + state.transitions()
                + " misrouted=" + bad + (bad == 0 && last.epoch == EPOCHS ? " OK" : " FAIL"));
    }
}
