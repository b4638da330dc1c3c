package cachefj;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** Several client threads hammer the cache with a skewed key distribution. */
public final class CacheBench {
    private static final AtomicLong loads = new AtomicLong();

    private static Object loadFromBackingStore(Object key) {
        loads.incrementAndGet();
        int k = (Integer) key;
        long v = 1;
        for (int i = 0; i < 50; i++) {
            v = v * 31 + k;
        }
        return Long.valueOf(v);
    }

    public static void main(String[] args) throws Exception {
        final SynchronizedCache cache = new SynchronizedCache(64, 400);
        final int clients = 6;
        final int opsPerClient = 3000;
        ExecutorService exec = Executors.newFixedThreadPool(clients);
        List<Future<Long>> results = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            final int seed = c;
            results.add(exec.submit(new Callable<Long>() {
                @Override
                public Long call() {
                    Random rnd = new Random(seed); // confined to this task
                    long checksum = 0;
                    for (int i = 0; i < opsPerClient; i++) {
                        int key = rnd.nextInt(10) < 8 ? rnd.nextInt(40) : rnd.nextInt(400);
                        if (i % 97 == 0) {
                            cache.remove(key);
                        } else if (i % 53 == 0) {
                            cache.put(key, loadFromBackingStore(key));
                        } else {
                            Object v = cache.get(key, CacheBench::loadFromBackingStore);
                            checksum += ((Long) v) & 0xff;
                        }
                    }
                    return checksum;
                }
            }));
        }
        long checksum = 0;
        for (Future<Long> f : results) {
            checksum += f.get();
        }
        exec.shutdown();
        if (!exec.awaitTermination(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("clients did not finish");
        }
        System.out.println("checksum=" + checksum);
        System.out.println(cache.stats() + " loads=" + loads.get());
    }
}
