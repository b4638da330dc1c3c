package montecarlobug;

import java.util.concurrent.atomic.AtomicLong;

/** Shared statistics; related fields are always updated and read together under the monitor. */
final class ResultAggregator {
    private int count;
    private double sum;
    private double sumSq;
    private double maxFinalPrice = Double.NEGATIVE_INFINITY;
    private final AtomicLong stepsSimulated = new AtomicLong();

    static final class Summary {
        final int count;
        final double mean;
        final double variance;
        final double maxFinalPrice;

        Summary(int count, double mean, double variance, double maxFinalPrice) {
            this.count = count;
            this.mean = mean;
            this.variance = variance;
            this.maxFinalPrice = maxFinalPrice;
        }
    }

    synchronized void add(ToResult r) {
        count++;
        sum += r.expectedReturnRate;
        sumSq += r.expectedReturnRate * r.expectedReturnRate;
        if (r.finalPrice > maxFinalPrice) {
            maxFinalPrice = r.finalPrice;
        }
    }

    void addSteps(int n) {
        long current = stepsSimulated.get();
        stepsSimulated.set(current + n); // BUG: shared-counter reduction done as get() then set(); a concurrent addSteps between them is lost
    }

    long stepsSimulated() {
        return stepsSimulated.get();
    }

    synchronized Summary snapshot() {
        if (count == 0) {
            return new Summary(0, 0.0, 0.0, 0.0);
        }
        double mean = sum / count;
        return new Summary(count, mean, sumSq / count - mean * mean, maxFinalPrice);
    }
}
