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
widths = [int(w) for w in "40-12-1".split("-")]
estimator = Sequential()
for k in range(len(widths)):
    if k == 0:
        estimator.add(Dense(widths[k], activation="tanh", input_dim=7))
    elif widths[k] == 1:
        estimator.add(Dense(widths[k], activation="linear"))
    else:
        estimator.add(Dense(widths[k], activation="tanh"))
estimator.compile(loss="mae", optimizer="adam")
estimator.fit(rooms, price, epochs=5, batch_size=12)
loss = estimator.evaluate(held_rooms, held_price)
guess = estimator.predict(held_rooms)
print(loss, guess[:3])
