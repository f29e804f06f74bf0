import numpy as np
from keras.models import Sequential
from keras.layers import GRU, Dense
from keras.optimizers import Adam

window = 20
t = np.linspace(0, 100, 2000)
series = np.sin(t) + 0.1 * np.random.randn(len(t))

X, y = [], []
for i in range(len(series) - window):
    X.append(series[i:i + window])
    y.append(series[i + window])
X = np.array(X)
y = np.array(y)
X = X.reshape((X.shape[0], X.shape[1], 1))

split = int(0.8 * len(X))
X_train, X_test = X[:split], X[split:]
y_train, y_test = y[:split], y[split:]

model = Sequential()
model.add(GRU(32, input_shape=(window, 1)))
model.add(Dense(1))
model.compile(loss='mse', optimizer=Adam(lr=0.001))
model.fit(X_train, y_train, epochs=20, batch_size=32, validation_split=0.1)

mse = model.evaluate(X_test, y_test)
print('test mse', mse)
