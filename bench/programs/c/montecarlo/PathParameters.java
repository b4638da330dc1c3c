package montecarlo;

/** Immutable model parameters shared read-only by all tasks. */
final class PathParameters {
    final double startPrice;
    final double drift;
    final double volatility;
    final double dTime;

    PathParameters(double startPrice, double drift, double volatility, double dTime) {
        this.startPrice = startPrice;
        this.drift = drift;
        this.volatility = volatility;
        this.dTime = dTime;
    }
}
