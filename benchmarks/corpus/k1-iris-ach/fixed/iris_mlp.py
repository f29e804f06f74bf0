# Iris species classifier (Keras 1.x)
import numpy as np
from sklearn.datasets import load_iris
from sklearn.model_selection import train_test_split
from keras.models import Sequential
from keras.layers.core import Dense, Activation
from keras.optimizers import SGD
from keras.utils import np_utils

np.random.seed(7)

iris = load_iris()
X = iris.data.astype('float32')
y = iris.target
y = np_utils.to_categorical(y, 3)

X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=7)

model = Sequential()
model.add(Dense(16, input_dim=4, init='uniform'))
model.add(Activation('relu'))
model.add(Dense(3, init='uniform'))
model.add(Activation('softmax'))

sgd = SGD(lr=0.01, momentum=0.9)
model.compile(loss='categorical_crossentropy', optimizer=sgd, metrics=['accuracy'])
model.fit(X_train, y_train, nb_epoch=100, batch_size=8, verbose=1)

score = model.evaluate(X_test, y_test, verbose=0)
print('Test accuracy:', score[1])
