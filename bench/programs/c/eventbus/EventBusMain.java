package eventbus;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

public final class EventBusMain {

    /** Counts events per source; merge makes each update atomic. */
    static final class CountingListener implements Listener {
        final ConcurrentHashMap<String, Long> perSource = new ConcurrentHashMap<>();

        @Override
        public void onEvent(Event e) {
            perSource.merge(e.source, 1L, Long::sum);
        }
    }

    /** Keeps the largest payload seen, with a CAS loop. */
    static final class MaxListener implements Listener {
        final AtomicLong max = new AtomicLong(Long.MIN_VALUE);

        @Override
        public void onEvent(Event e) {
            long cur;
            do {
                cur = max.get();
                if (e.payload <= cur) {
                    return;
                }
            } while (!max.compareAndSet(cur, e.payload));
        }
    }

    /** Keeps an ordered journal; the whole append is one critical section. */
    static final class JournalListener implements Listener {
        private final List<String> journal = new ArrayList<>();
        private long checksum = 0;

        @Override
        public synchronized void onEvent(Event e) {
            journal.add(e.topic + "/" + e.source + "/" + e.payload);
            checksum = checksum * 31 + e.payload;
        }

        synchronized String summary() {
            return journal.size() + " entries";
        }
    }

    public static void main(String[] args) throws Exception {
        EventBus bus = new EventBus();
        CountingListener counter = new CountingListener();
        MaxListener max = new MaxListener();
        JournalListener journal = new JournalListener();
        Listener flaky = e -> {
            if (e.payload % 13 == 0) {
                throw new IllegalStateException("flaky");
            }
        };
        bus.subscribe("orders", counter);
        bus.subscribe("orders", max);
        bus.subscribe("payments", counter);
        bus.subscribe("payments", journal);
        bus.subscribe("payments", flaky);

        ExecutorService publishers = Executors.newFixedThreadPool(4);
        List<Future<Integer>> futures = new ArrayList<>();
        for (int p = 0; p < 4; p++) {
            final String source = "publisher-" + p;
            final int base = p * 1000;
            futures.add(publishers.submit(() -> {
                int sent = 0;
                for (int i = 0; i < 2000; i++) {
                    String topic = i % 3 == 0 ? "payments" : (i % 7 == 0 ? "audit" : "orders");
                    bus.publish(new Event(topic, source, base + i));
                    sent++;
                    if (i == 1000 && source.equals("publisher-0")) {
                        bus.unsubscribe("payments", flaky);
                    }
                }
                return sent;
            }));
        }
        int sent = 0;
        for (Future<Integer> f : futures) {
            sent += f.get();
        }
        publishers.shutdown();
        publishers.awaitTermination(10, TimeUnit.SECONDS);

        Map<String, Long> perSource = new TreeMap<>(counter.perSource);
        System.out.println("sent=" + sent + " delivered=" + bus.delivered()
                + " dead=" + bus.deadEvents());
        System.out.println("per source=" + perSource);
        System.out.println("max payload=" + max.max.get() + " journal=" + journal.summary());
    }
}
