import numpy as np
from keras.layers import Dense
from keras.models import Sequential


class Regressor:
    def __init__(self, inputs):
        self.inputs = inputs
        self._stack()

    def _stack(self):
        net = Sequential()
        net.add(Dense(16, activation="relu", input_dim=self.inputs))
        net.add(Dense(1))
        net.compile(loss="mse", optimizer="adam")
        self.net = net


samples = np.random.rand(80, 4)
values = np.random.rand(80)
regressor = Regressor(4)
regressor.net.fit(samples, values, epochs=3, batch_size=8)
