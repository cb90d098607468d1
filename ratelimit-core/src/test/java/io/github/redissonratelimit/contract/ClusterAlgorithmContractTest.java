package io.github.redissonratelimit.contract;

/** The algorithm contract on the shared Redis Cluster of three masters. */
class ClusterAlgorithmContractTest extends AlgorithmContract {

    @Override
    Topology topology() {
        return Topology.cluster();
    }
}
