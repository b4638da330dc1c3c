package montecarlobug;

import java.util.Random;
import java.util.concurrent.Callable;

/** One path simulation; all working state is confined to the calling thread. */
final class PriceTask implements Callable<ToResult> {
    private final int id;
    private final PathParameters params;
    private final int steps;
    private final ResultAggregator aggregator;

    PriceTask(int id, PathParameters params, int steps, ResultAggregator aggregator) {
        this.id = id;
        this.params = params;
        this.steps = steps;
        this.aggregator = aggregator;
    }

    @Override
    public ToResult call() {
        Random rnd = new Random(1234L + id);
        double[] path = new double[steps + 1];
        path[0] = params.startPrice;
        double sqrtDt = Math.sqrt(params.dTime);
        for (int t = 1; t <= steps; t++) {
            double z = rnd.nextGaussian();
            double growth = (params.drift - 0.5 * params.volatility * params.volatility) * params.dTime
                    + params.volatility * sqrtDt * z;
            path[t] = path[t - 1] * Math.exp(growth);
        }
        // estimate return rate and volatility from the generated path
        double sum = 0.0, sumSq = 0.0;
        for (int t = 1; t <= steps; t++) {
            double r = Math.log(path[t] / path[t - 1]);
            sum += r;
            sumSq += r * r;
        }
        double mean = sum / steps;
        double var = sumSq / steps - mean * mean;
        double vol = Math.sqrt(var / params.dTime);
        double rate = mean / params.dTime + 0.5 * vol * vol;

        ToResult result = new ToResult(id, rate, vol, path[steps]);
        aggregator.addSteps(steps);
        aggregator.add(result);
        return result;
    }
}
