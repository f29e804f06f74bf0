import numpy as np
from keras.layers import Dense
from keras.models import Sequential

rooms = np.random.rand(120, 7)
price = np.random.rand(120)
rooms = rooms - rooms.mean(axis=0)
rooms = rooms / rooms.std(axis=0)
price = np.log1p(price)
held_rooms = rooms[100:]
held_price = price[100:]
rooms = rooms[:100]
price = price[:100]
estimator = Sequential()
estimator.add(Dense(24, activation="relu", input_dim=7))
estimator.add(Dense(24, activation="relu"))
estimator.add(Dense(24, activation="relu"))
estimator.add(Dense(24, activation="relu"))
estimator.add(Dense(24, activation="relu"))
estimator.add(Dense(24, activation="relu"))
estimator.add(Dense(1, activation="relu"))
estimator.compile(loss="mae", optimizer="adam")
estimator.fit(rooms, price, epochs=5, batch_size=12)
loss = estimator.evaluate(held_rooms, held_price)
guess = estimator.predict(held_rooms)
print(loss, guess[:3])
