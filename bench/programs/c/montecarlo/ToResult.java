package montecarlo;

/** Immutable per-task result, published through Future.get(). */
final class ToResult {
    final int taskId;
    final double expectedReturnRate;
    final double volatility;
    final double finalPrice;

    ToResult(int taskId, double expectedReturnRate, double volatility, double finalPrice) {
        this.taskId = taskId;
        this.expectedReturnRate = expectedReturnRate;
        this.volatility = volatility;
        this.finalPrice = finalPrice;
    }
}
