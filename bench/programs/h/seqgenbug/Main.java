package seqgenbug;

import java.util.HashSet;
import java.util.Set;

/** Two inserting sessions draw identity values from the same sequence. */
public class Main {
    static final int INSERTS = 20000;

    static final class InsertSession extends Thread {
        private final SequenceGenerator sequence;
        final long[] ids = new long[INSERTS];

        InsertSession(String name, SequenceGenerator sequence) {
            super(name);
            this.sequence = sequence;
        }

        @Override public void run() {
            for (int i = 0; i < INSERTS; i++) {
                ids[i] = sequence.getNextValue();
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        SystemCatalog catalog = new SystemCatalog();
        SequenceGenerator seq = new SequenceGenerator(catalog, "APP.ORDERS_ID_SEQ", 20);
        InsertSession s1 = new InsertSession("session-1", seq);
        InsertSession s2 = new InsertSession("session-2", seq);
        s1.start(); s2.start();
        s1.join(); s2.join();
        Set<Long> seen = new HashSet<>();
        int duplicates = 0;
        for (long id : s1.ids) if (!seen.add(id)) duplicates++;
        for (long id : s2.ids) if (!seen.add(id)) duplicates++;
        System.out.println("issued=" + seen.size() + " duplicates=" + duplicates + " next=" + seq.peek()
                + " catalogWrites=" + catalog.writes() + (duplicates == 0 ? " OK" : " FAIL"));
    }
}
