package leaderbug;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** Nodes of a cluster take turns acting as leader; at most one node may lead at a time. */
public class LeaderElection {

    static final class Election {
        private volatile String leader;
        private volatile long term;

        boolean hasLeader() {
            return leader != null;
        }

        /** Installs the node as leader and starts a new term. */
        synchronized void claim(String node) {
            leader = node;
            term++;
        }

        synchronized void resign(String node) {
            if (node.equals(leader)) {
                leader = null;
            }
        }

        long term() {
            return term;
        }
    }

    static final class Node implements Runnable {
        private final String name;
        private final Election election;
        private final AtomicInteger activeLeaders;
        private final AtomicInteger splitBrain;

        Node(String name, Election election, AtomicInteger activeLeaders, AtomicInteger splitBrain) {
            this.name = name;
            this.election = election;
            this.activeLeaders = activeLeaders;
            this.splitBrain = splitBrain;
        }

        private void leadOneRound() {
            if (activeLeaders.incrementAndGet() > 1) {
                splitBrain.incrementAndGet();
            }
            Thread.yield(); // flush the replication log, etc.
            activeLeaders.decrementAndGet();
        }

        @Override
        public void run() {
            for (int round = 0; round < 20_000; round++) {
                if (!election.hasLeader()) { // BUG: check in the caller (volatile read) that nobody leads ...
                    election.claim(name); // BUG: ... act in a synchronized callee that does not re-check; two nodes can both become leader
                    leadOneRound();
                    election.resign(name);
                }
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Election election = new Election();
        AtomicInteger active = new AtomicInteger();
        AtomicInteger splitBrain = new AtomicInteger();
        List<Thread> nodes = new ArrayList<>();
        for (int n = 0; n < 4; n++) {
            Thread t = new Thread(new Node("node-" + n, election, active, splitBrain), "node-" + n);
            nodes.add(t);
            t.start();
        }
        for (Thread t : nodes) {
            t.join();
        }
        System.out.println("terms=" + election.term() + " split-brain rounds=" + splitBrain.get());
    }
}
