package montecarlobug;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Monte Carlo pricing kernel in the style of the JGF MonteCarlo benchmark:
 * many independent price-path simulations are submitted as tasks, each
 * returns an immutable result, and a shared aggregator collects statistics.
 */
public class MonteCarlo {
    static final int NUM_TASKS = 64;
    static final int STEPS = 250;
    static final int THREADS = 4;

    public static void main(String[] args) throws Exception {
        PathParameters params = new PathParameters(100.0, 0.05, 0.2, 1.0 / 365.0);
        ResultAggregator aggregator = new ResultAggregator();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);

        List<Future<ToResult>> futures = new ArrayList<>();
        for (int i = 0; i < NUM_TASKS; i++) {
            futures.add(pool.submit(new PriceTask(i, params, STEPS, aggregator)));
        }

        double sumOfRates = 0.0;
        for (Future<ToResult> f : futures) {
            ToResult r = f.get();
            sumOfRates += r.expectedReturnRate;
        }
        pool.shutdown();
        if (!pool.awaitTermination(10, TimeUnit.SECONDS)) {
            System.err.println("pool did not terminate");
        }

        ResultAggregator.Summary s = aggregator.snapshot();
        System.out.printf("tasks=%d meanRate=%.6f (futures: %.6f) stddev=%.6f maxPrice=%.3f%n",
                s.count, s.mean, sumOfRates / NUM_TASKS, Math.sqrt(s.variance), s.maxFinalPrice);
        System.out.println("steps simulated = " + aggregator.stepsSimulated()
                + " (expected " + ((long) NUM_TASKS * STEPS) + ")");
    }
}
