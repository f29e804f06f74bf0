import numpy as np
from keras.callbacks import LearningRateScheduler
from keras.layers import Dense
from keras.models import Sequential
from keras.optimizers import SGD

readings = np.random.rand(200, 5)
outcome = np.random.rand(200)
rate = lambda epoch: 0.5 / (epoch + 1)
reg = Sequential()
reg.add(Dense(8, input_dim=5, activation="relu"))
reg.add(Dense(1))
reg.compile(loss="mse", optimizer=SGD(lr=rate(0)))
reg.fit(readings, outcome, epochs=10, callbacks=[LearningRateScheduler(rate)])
